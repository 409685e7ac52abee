# Shared by bench/decode-bench.sh and bench/replay-bench.sh (sourced, not run): the NMEA input
# file, the gpsdecode check, and the measuring and summarising helpers.
# Expects N, ROOT, SHARED and WORK to be set; sets FILE and SENTENCES.

command -v gpsdecode >/dev/null || { echo "gpsdecode not found (Debian package gpsd-clients)" >&2; exit 1; }

FILE=${NMEA_FILE:-}
if [[ -z "$FILE" ]]; then
    [[ -f "$SHARED/gen_nmea.py" ]] || { echo "no $SHARED/gen_nmea.py: set NMEA_FILE" >&2; exit 1; }
    FILE="$WORK/nmea.nmea"
    python3 "$SHARED/gen_nmea.py" -n "$N" -o "$FILE" >/dev/null
fi
SENTENCES=$(grep -c '^\$' "$FILE")

# /usr/bin/time -f "%e %U %S %M": wall s, user s, system s, peak RSS KiB.
measure() { /usr/bin/time -f "%e %U %S %M" -o "$WORK/t" "$@" >/dev/null; cat "$WORK/t"; }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
rate() { awk -v n="$SENTENCES" -v t="$1" 'BEGIN { printf "%d", n / t }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

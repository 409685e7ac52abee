#!/usr/bin/env bash
# `locus decode` against gpsd's gpsdecode on the same NMEA file, in the same run (issue 3):
#   - whole process, file in, JSON lines to /dev/null: `locus decode F` vs `gpsdecode < F`,
#     alternating, RUNS times each; sentences/s from wall time and from user+system CPU time
#   - the decoder alone (no JSON, no I/O): `locus-bench nmea F`, best of 5, wall and CPU
#   - peak RSS of `locus decode` on files of 0.1×, 1× and 5× the size (streaming: it must not grow)
# This machine class is noisy (2 shared cores): compare the ratios printed at the end; the CPU
# time ratio is the steadier one when something else is running.
#
# usage: bench/decode-bench.sh [SENTENCES]     (default 1000000; needs ../shared/bench/gen_nmea.py)
# env:   SCRATCH=.build-bench   SwiftPM scratch directory for the release build
#        RUNS=5                 alternating runs of each whole-process measurement
#        NMEA_FILE=path         use this file instead of generating one
set -euo pipefail

N=${1:-1000000}
RUNS=${RUNS:-5}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SHARED="$ROOT/../shared/bench"
SCRATCH=${SCRATCH:-.build-bench}
cd "$ROOT"

WORK=$(mktemp -d /tmp/locus-decode-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
source "$ROOT/bench/nmea-common.sh"
echo "== $FILE: $SENTENCES sentences, $(stat -c %s "$FILE") bytes"

echo "== building locus and locus-bench (release, scratch $SCRATCH)"
swift build --scratch-path "$SCRATCH" -c release --product locus 2>&1 | tail -1
swift build --scratch-path "$SCRATCH" -c release --product locus-bench 2>&1 | tail -1
BIN="$(swift build --scratch-path "$SCRATCH" -c release --show-bin-path)"

locus_wall=(); locus_cpu=(); gpsd_wall=(); gpsd_cpu=(); locus_rss=0; gpsd_rss=0
for ((run = 1; run <= RUNS; run++)); do
    read -r w u s m < <(measure "$BIN/locus" decode "$FILE")
    locus_wall+=("$w"); locus_cpu+=("$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')"); locus_rss=$m
    read -r gw gu gs gm < <(measure sh -c 'exec gpsdecode < "$1"' sh "$FILE")
    gpsd_wall+=("$gw"); gpsd_cpu+=("$(awk -v u="$gu" -v s="$gs" 'BEGIN { print u + s }')"); gpsd_rss=$gm
    echo "run $run  locus decode ${w}s (cpu $(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')s)   gpsdecode ${gw}s (cpu $(awk -v u="$gu" -v s="$gs" 'BEGIN { print u + s }')s)"
done

echo "== decoder alone (and go-nmea's parse loop when Go and Debian's go-nmea are installed)"
GONMEA=""
if command -v go >/dev/null && [[ -d /usr/share/gocode/src/github.com/adrianmo/go-nmea && -f "$SHARED/gonmea_main.go" ]]; then
    (cd "$WORK" && GO111MODULE=off GOPATH=/usr/share/gocode go build -o "$WORK/gonmea" "$SHARED/gonmea_main.go") && GONMEA="$WORK/gonmea"
else
    echo "(go-nmea not available: apt install golang-go golang-github-adrianmo-go-nmea-dev)"
fi
alone_rates=(); go_rates=()
for ((run = 1; run <= 3; run++)); do
    alone=$("$BIN/locus-bench" nmea "$FILE" 1)
    echo "run $run  $alone"
    alone_rates+=("$(sed -E 's/.* ([0-9]+) sentences\/s cpu.*/\1/' <<<"$alone")")
    if [[ -n "$GONMEA" ]]; then
        g=$("$GONMEA" "$FILE")
        echo "run $run  $g"
        go_rates+=("$(sed -E 's/.*sent\/s=([0-9]+).*/\1/' <<<"$g")")
    fi
done

echo "== peak memory of locus decode against file size"
rss_lines=()
for factor in 0.1 1 5; do
    n=$(awk -v n="$N" -v f="$factor" 'BEGIN { printf "%d", n * f }')
    f="$WORK/rss-$n.nmea"
    if [[ -f "$SHARED/gen_nmea.py" ]]; then python3 "$SHARED/gen_nmea.py" -n "$n" -o "$f" >/dev/null; else continue; fi
    read -r _ _ _ m < <(measure "$BIN/locus" decode "$f")
    rss_lines+=("$(printf '%10d sentences (%4d MB): peak RSS %6d KiB' "$n" $(( $(stat -c %s "$f") / 1000000 )) "$m")")
    rm -f "$f"
done


lw=$(median "${locus_wall[@]}"); lc=$(median "${locus_cpu[@]}")
gw=$(median "${gpsd_wall[@]}"); gc=$(median "${gpsd_cpu[@]}")
echo
echo "================ summary (medians of $RUNS; compare ratios) ================"
printf '%-28s %10s sentences/s wall  %10s sentences/s cpu   peak %s KiB\n' "locus decode" "$(rate "$lw")" "$(rate "$lc")" "$locus_rss"
printf '%-28s %10s sentences/s wall  %10s sentences/s cpu   peak %s KiB\n' "gpsdecode" "$(rate "$gw")" "$(rate "$gc")" "$gpsd_rss"
printf '%-28s %10s× wall  %10s× cpu        (target >= 4)\n' "locus decode / gpsdecode" "$(ratio "$gw" "$lw")" "$(ratio "$gc" "$lc")"
am=$(median "${alone_rates[@]}")
printf '%-28s %10s sentences/s cpu   (target >= 2000000, about 3x go-nmea)\n' "decoder alone" "$am"
if [[ ${#go_rates[@]} -gt 0 ]]; then
    gm=$(median "${go_rates[@]}")
    printf '%-28s %10s sentences/s       decoder alone / go-nmea: %s×\n' "go-nmea parse loop" "$gm" "$(ratio "$am" "$gm")"
fi
printf '%s\n' "${rss_lines[@]}"

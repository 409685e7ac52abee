#!/usr/bin/env bash
# Issue 14's benchmarks, in one run:
#  1. end to end through the daemon: `locus run`, a replay at speed: max of an NMEA file through
#     standard + region (10,000 circular fences along the generated drive) to a file sink, with
#     the journal on; against `locus replay` of the same file and config (the in-memory upper
#     bound), alternating, RUNS times. Counts the events of both, per producer: none may be lost.
#  2. the journal alone: `locus-bench journal` (append rate, catch-up read rate, SQLite for
#     comparison);
#  3. resident memory of `locus run` on the default config.yaml after 20 s.
#
# usage: bench/journal-bench.sh [SENTENCES]     (default 1000000; needs ../shared/bench/gen_nmea.py)
# env:   SCRATCH=.build-bench   SwiftPM scratch directory for the release build
#        RUNS=3                 alternating runs of each
#        LOCUS_BIN=path         run that locus instead of the one built (before/after comparisons)
set -euo pipefail

N=${1:-1000000}
RUNS=${RUNS:-3}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SHARED="$ROOT/../shared/bench"
SCRATCH=${SCRATCH:-.build-bench}
cd "$ROOT"
WORK=$(mktemp -d /tmp/locus-journal-bench.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$WORK"' EXIT
source "$ROOT/bench/nmea-common.sh"
echo "== $FILE: $SENTENCES sentences"

echo "== building locus and locus-bench (release, scratch $SCRATCH)"
swift build --scratch-path "$SCRATCH" -c release --product locus 2>&1 | tail -1
swift build --scratch-path "$SCRATCH" -c release --product locus-bench 2>&1 | tail -1
BIN="$(swift build --scratch-path "$SCRATCH" -c release --show-bin-path)"
LOCUS="${LOCUS_BIN:-$BIN/locus}"

# 10,000 circles of 50 to 300 m, seeded, over the area gen_nmea.py drives in (Berlin centre ± 0.12°).
python3 - "$WORK/fences.yaml" "$FILE" <<'PY'
import random, sys
out, nmea = sys.argv[1], sys.argv[2]
r = random.Random(7)
with open(out, "w") as f:
    f.write("hub:\n  state_directory: %s/state\n" % out.rsplit("/", 1)[0])
    f.write("sources:\n  - {type: replay, id: gps, file: %s, source: gps0, speed: max}\n" % nmea)
    f.write("services:\n  - {type: standard, id: loc, distance_filter: 0}\n")
    f.write("  - type: region\n    id: fences\n    persist: false\n    regions:\n")
    for k in range(10000):
        lat = 52.52 + r.uniform(-0.12, 0.12); lon = 13.405 + r.uniform(-0.19, 0.19)
        f.write("      - {id: f%d, center: {lat: %.6f, lon: %.6f}, radius: %d}\n" % (k, lat, lon, r.randint(50, 300)))
    f.write("sinks:\n  - {type: file, id: out, path: %s/out.jsonl, max_bytes: 0, topics: [\"location.\", \"region.\"]}\n" % out.rsplit("/", 1)[0])
PY
CONFIG="$WORK/fences.yaml"

count_by_producer() { awk -F'"producer":"' '{ split($2, a, "\""); n[a[1]]++ } END { for (p in n) printf "%s=%d ", p, n[p]; print "" }' "$1"; }

"$LOCUS" replay "$FILE" --config "$CONFIG" 2>/dev/null | grep -E '"topic":"(location|region)\.' > "$WORK/replay.jsonl"
expected=$(count_by_producer "$WORK/replay.jsonl")
total=$(wc -l < "$WORK/replay.jsonl")
echo "== locus replay gives: $expected($total events)"

# One `locus run`: until the file sink has every event (or 600 s), then SIGTERM. Prints wall
# seconds from start to the last event and peak RSS (KiB).
run_daemon() {
    rm -rf "$WORK/state" "$WORK/out.jsonl" "$WORK/rt"; mkdir -p -m 700 "$WORK/rt"
    local start end pid hwm lines
    start=$(date +%s.%N)
    LOCUS_RUNTIME_DIR="$WORK/rt" LOCUS_LOG_LEVEL=warning "$LOCUS" run "$CONFIG" 2>"$WORK/run.err" &
    pid=$!
    lines=0
    for ((i = 0; i < 6000; i++)); do
        sleep 0.1
        lines=$( (wc -l < "$WORK/out.jsonl") 2>/dev/null || echo 0)
        [ "$lines" -ge "$total" ] && break
    done
    end=$(date +%s.%N)
    hwm=$(awk '/VmHWM/ { print $2 }' /proc/$pid/status)
    kill -TERM $pid; wait $pid || true
    echo "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }') $hwm $lines"
}

rw=(); dw=(); rrss=0; drss=0
for ((run = 1; run <= RUNS; run++)); do
    read -r w _ _ m < <(measure "$LOCUS" replay "$FILE" --config "$CONFIG")
    rw+=("$w"); rrss=$m
    read -r w2 m2 lines < <(run_daemon)
    dw+=("$w2"); drss=$m2
    got=$(count_by_producer <(grep -E '"topic":"(location|region)\.' "$WORK/out.jsonl"))
    lost=$((total - lines))
    echo "run $run  locus replay ${w}s   locus run + journal ${w2}s   file sink: $got  lost: $lost   journal: $(du -sk "$WORK/state/journal" | cut -f1) KiB"
done
a=$(median "${rw[@]}"); b=$(median "${dw[@]}")
fixes=$(grep -c '"topic":"location.update' "$WORK/replay.jsonl")
echo
echo "================ end to end (medians of $RUNS) ================"
printf '%-44s %8.2f s  %9.0f fixes/s  peak %s KiB\n' "locus replay (in memory)" "$a" "$(awk -v n="$fixes" -v t="$a" 'BEGIN { print n / t }')" "$rrss"
printf '%-44s %8.2f s  %9.0f fixes/s  peak %s KiB\n' "locus run, journal on, file sink" "$b" "$(awk -v n="$fixes" -v t="$b" 'BEGIN { print n / t }')" "$drss"
printf '%-44s %8s   (target >= 0.50)\n' "locus run / locus replay (rate)" "$(ratio "$a" "$b")"

echo
echo "================ the journal alone ================"
"$BIN/locus-bench" journal 2000000 "$WORK"

echo
echo "================ default config.yaml, resident memory ================"
mkdir -p -m 700 "$WORK/rt2"
(cd "$ROOT" && LOCUS_RUNTIME_DIR="$WORK/rt2" LOCUS_STATE_DIR="$WORK/state2" LOCUS_LOG_LEVEL=warning "$LOCUS" run config.yaml >/dev/null 2>&1) &
sleep 20
pid=$(pgrep -n -f "$LOCUS run config.yaml")
echo "locus run config.yaml after 20 s: $(awk '/VmRSS/ { print $2 }' /proc/$pid/status) KiB resident, peak $(awk '/VmHWM/ { print $2 }' /proc/$pid/status) KiB (release build, Swift runtime linked dynamically)"
kill -TERM "$pid"; wait || true

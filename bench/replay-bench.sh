#!/usr/bin/env bash
# `locus replay` of an NMEA file through the standard, significant-change and visits services
# (bench/replay-services.yaml), events as JSON to /dev/null, against gpsdecode decoding the same
# file (issue 4's target: at least 2x gpsdecode's sentences per second), alternating, RUNS times.
# Compare the ratio, not absolute rates: this machine class is noisy.
#
# usage: bench/replay-bench.sh [SENTENCES]     (default 1000000; needs ../shared/bench/gen_nmea.py)
# env:   SCRATCH=.build-bench   SwiftPM scratch directory for the release build
#        RUNS=5                 alternating runs of each
#        NMEA_FILE=path         use this file instead of generating one
set -euo pipefail

N=${1:-1000000}
RUNS=${RUNS:-5}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SHARED="$ROOT/../shared/bench"
SCRATCH=${SCRATCH:-.build-bench}
cd "$ROOT"

WORK=$(mktemp -d /tmp/locus-replay-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
source "$ROOT/bench/nmea-common.sh"
echo "== $FILE: $SENTENCES sentences"

echo "== building locus (release, scratch $SCRATCH)"
swift build --scratch-path "$SCRATCH" -c release --product locus 2>&1 | tail -1
LOCUS="$(swift build --scratch-path "$SCRATCH" -c release --show-bin-path)/locus"
CONFIG="$ROOT/bench/replay-services.yaml"

events=$("$LOCUS" replay "$FILE" --config "$CONFIG" | awk -F'"topic":"' '{ split($2, a, "\""); n[a[1]]++ } END { for (t in n) printf "%s=%d ", t, n[t] }')
echo "== events per topic: $events"

lw=(); lc=(); gw=(); gc=(); lrss=0
for ((run = 1; run <= RUNS; run++)); do
    read -r w u s m < <(measure "$LOCUS" replay "$FILE" --config "$CONFIG")
    lw+=("$w"); lc+=("$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')"); lrss=$m
    read -r w2 u2 s2 _ < <(measure sh -c 'exec gpsdecode < "$1"' sh "$FILE")
    gw+=("$w2"); gc+=("$(awk -v u="$u2" -v s="$s2" 'BEGIN { print u + s }')")
    echo "run $run  locus replay ${w}s   gpsdecode ${w2}s"
done

a=$(median "${lw[@]}"); b=$(median "${lc[@]}"); c=$(median "${gw[@]}"); d=$(median "${gc[@]}")
echo
echo "================ summary (medians of $RUNS; compare ratios) ================"
printf '%-40s %10s sentences/s wall  %10s sentences/s cpu  peak %s KiB\n' "locus replay, 3 services" "$(rate "$a")" "$(rate "$b")" "$lrss"
printf '%-40s %10s sentences/s wall  %10s sentences/s cpu\n' "gpsdecode (decode only)" "$(rate "$c")" "$(rate "$d")"
printf '%-40s %10s× wall  %10s× cpu      (target >= 2)\n' "locus replay / gpsdecode" "$(ratio "$c" "$a")" "$(ratio "$d" "$b")"

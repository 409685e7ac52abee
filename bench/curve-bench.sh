#!/usr/bin/env bash
# Issue 15: the cost of CURVE on hub throughput. The same N fix messages through the hub to a
# subscriber process over loopback TCP, plain and with CURVE (ZAP allow-list on), alternating,
# RUNS times; medians and the same-run ratio (target >= 0.70 of plaintext).
#
# usage: bench/curve-bench.sh [N]      (default 2000000)
# env:   SCRATCH=.build-bench  RUNS=5
set -euo pipefail
N=${1:-2000000}
RUNS=${RUNS:-5}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SCRATCH=${SCRATCH:-.build-bench}
cd "$ROOT"
echo "== building locus-bench (release, scratch $SCRATCH)"
swift build --scratch-path "$SCRATCH" -c release --product locus-bench 2>&1 | tail -1
BIN="$(swift build --scratch-path "$SCRATCH" -c release --show-bin-path)/locus-bench"
rate() { grep -oE '[0-9.]+ msg/s' <<<"$1" | cut -d' ' -f1; }
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
plain=(); curve=()
for ((i = 1; i <= RUNS; i++)); do
    p=$("$BIN" hub-tcp "$N" 2>/dev/null); c=$("$BIN" hub-curve "$N" 2>/dev/null)
    echo "run $i: $p | $c"
    plain+=("$(rate "$p")"); curve+=("$(rate "$c")")
done
mp=$(median "${plain[@]}"); mc=$(median "${curve[@]}")
echo
printf 'plain tcp  %12.0f msg/s (median of %d)\n' "$mp" "$RUNS"
printf 'curve tcp  %12.0f msg/s (median of %d)\n' "$mc" "$RUNS"
printf 'curve / plain  %.2f   (target >= 0.70)\n' "$(awk -v a="$mc" -v b="$mp" 'BEGIN { print a / b }')"

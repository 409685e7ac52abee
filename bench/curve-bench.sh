#!/usr/bin/env bash
# Issue 15: the cost of CURVE on hub throughput. The same N fix messages through the hub to a
# subscriber process over loopback TCP, plain and with CURVE (ZAP allow-list on), alternating,
# RUNS times; medians and the same-run ratio (target >= 0.70 of plaintext). Also the CPU each
# run used per message (both processes, user + system) and, from bench/curve_box_cost.c, what
# libsodium's seal and open alone cost for the two frames of a message: the floor of CURVE's
# extra CPU, whatever Locus does.
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
BOX=$(mktemp)
trap 'rm -f "$BOX" "$BOX.out"' EXIT
cc -O2 "$ROOT/bench/curve_box_cost.c" -lsodium -o "$BOX"
# One run of locus-bench MODE: its output line, then the CPU seconds it and its subscriber used.
measure() {
    local out cpu
    TIMEFORMAT='%U %S'
    cpu=$( { time "$BIN" "$1" "$N" >"$BOX.out" 2>/dev/null; } 2>&1 )
    out=$(cat "$BOX.out")
    echo "$out"
    awk '{ print $1 + $2 }' <<<"$cpu"
}
plain=(); curve=(); plain_cpu=(); curve_cpu=()
for ((i = 1; i <= RUNS; i++)); do
    p=$(measure hub-tcp); c=$(measure hub-curve)
    echo "run $i: $(head -1 <<<"$p") | $(head -1 <<<"$c")"
    plain+=("$(rate "$p")"); curve+=("$(rate "$c")")
    plain_cpu+=("$(tail -1 <<<"$p")"); curve_cpu+=("$(tail -1 <<<"$c")")
done
mp=$(median "${plain[@]}"); mc=$(median "${curve[@]}")
pc=$(median "${plain_cpu[@]}"); cc_=$(median "${curve_cpu[@]}")
body=$(grep -oE '[0-9]+B:' <<<"$p" | tr -d 'B:')
read -r _ seal_topic open_topic < <("$BOX" 12 | tail -1)
read -r _ seal_body open_body < <("$BOX" "$body" | tail -1)
box=$(awk -v a="$seal_topic" -v b="$open_topic" -v c="$seal_body" -v d="$open_body" 'BEGIN { print a + b + c + d }')
per() { awk -v s="$1" -v n="$N" 'BEGIN { printf "%.2f", s / n * 1e6 }'; }
echo
cores() { awk -v r="$1" -v c="$2" 'BEGIN { printf "%.2f", r * c / 1e6 }'; }
printf 'plain tcp  %12.0f msg/s (median of %d), %s µs CPU per message (%s cores busy; %s here)\n' \
    "$mp" "$RUNS" "$(per "$pc")" "$(cores "$mp" "$(per "$pc")")" "$(nproc)"
printf 'curve tcp  %12.0f msg/s (median of %d), %s µs CPU per message (%s cores busy)\n' \
    "$mc" "$RUNS" "$(per "$cc_")" "$(cores "$mc" "$(per "$cc_")")"
printf 'curve / plain  %.2f   (target >= 0.70)\n' "$(awk -v a="$mc" -v b="$mp" 'BEGIN { print a / b }')"
printf 'libsodium alone, per message (12 B topic + %s B body, seal + open): %.2f µs\n' "$body" "$box"
printf 'best ratio with that cipher cost if plaintext is CPU-bound: %.2f\n' \
    "$(awk -v p="$(per "$pc")" -v b="$box" 'BEGIN { print p / (p + b) }')"

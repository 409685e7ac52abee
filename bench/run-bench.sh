#!/usr/bin/env bash
# Side-by-side throughput of the Locus hub and codec against their references:
#   - locus-bench hub N   vs  libzmq's own C zmq_proxy (zbench thr ipc 300 N proxy), alternating, 3 runs each
#   - locus-bench codec N vs  orjson dumps / loads (json_bench.py), when orjson is importable
# This machine class is noisy: compare the ratios printed at the end, not absolute rates
# across runs.
#
# usage: bench/run-bench.sh [N] [CODEC_N]       (run from anywhere; defaults 1000000 each)
# env:   SCRATCH=.build-bench   SwiftPM scratch directory for the release build
#        RUNS=3                 alternating runs of each throughput benchmark
set -euo pipefail

N=${1:-1000000}
CODEC_N=${2:-$N}
RUNS=${RUNS:-3}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SHARED="$ROOT/../shared/bench"
SCRATCH=${SCRATCH:-.build-bench}
cd "$ROOT"

WORK=$(mktemp -d /tmp/locus-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

echo "== building locus-bench (release, scratch $SCRATCH)"
swift build --scratch-path "$SCRATCH" -c release --product locus-bench 2>&1 | tail -1
BENCH="$(swift build --scratch-path "$SCRATCH" -c release --show-bin-path)/locus-bench"

ZBENCH=""
if [[ -f "$SHARED/zbench.c" ]]; then
    gcc -O2 "$SHARED/zbench.c" -lzmq -lpthread -o "$WORK/zbench"
    ZBENCH="$WORK/zbench"
else
    echo "(no $SHARED/zbench.c: skipping the zmq_proxy reference)"
fi

# Alternate the two throughput runs so that load changes on the machine hit both alike.
hub_rates=(); proxy_rates=(); lost_total=0
for ((run = 1; run <= RUNS; run++)); do
    if [[ -n "$ZBENCH" ]]; then
        line=$("$ZBENCH" thr ipc 300 "$N" proxy 2>>"$WORK/zbench.err" | grep '^thr ')
        rate=$(sed -E 's/.*msg\/s=([0-9]+).*/\1/' <<<"$line")
        proxy_rates+=("$rate")
        echo "run $run  zmq_proxy ipc 300B: $rate msg/s"
    fi
    line=$("$BENCH" hub "$N" 2>>"$WORK/hub.err")
    echo "run $run  $line"
    hub_rates+=("$(sed -E 's/.*: ([0-9]+) msg\/s.*/\1/' <<<"$line")")
    lost_total=$((lost_total + $(sed -E 's/.*lost ([0-9]+)\).*/\1/' <<<"$line")))
done

echo "== codec (N=$CODEC_N)"
codec=$("$BENCH" codec "$CODEC_N")
echo "$codec"
orjson_dumps=""; orjson_loads=""
if [[ -f "$SHARED/json_bench.py" ]]; then
    if ! python3 -c 'import orjson' 2>/dev/null; then
        echo "(installing orjson)"
        python3 -m pip install --quiet orjson || true
    fi
    if python3 -c 'import orjson' 2>/dev/null; then
        # A copy, because the script writes a sample file next to itself on first run.
        cp "$SHARED/json_bench.py" "$WORK/"
        d=$(python3 "$WORK/json_bench.py" orjson "$CODEC_N"); echo "$d"
        l=$(python3 "$WORK/json_bench.py" orjson-loads "$CODEC_N"); echo "$l"
        orjson_dumps=$(sed -E 's/.*events\/s=([0-9]+).*/\1/' <<<"$d")
        orjson_loads=$(sed -E 's/.*events\/s=([0-9]+).*/\1/' <<<"$l")
    else
        echo "(orjson not available: skipping the codec reference)"
    fi
fi

median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print 0; else if (NR % 2) print v[(NR + 1) / 2]; else print int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "n/a" }'; }
codec_rate() { sed -nE "s/^codec $1 [^:]*: ([0-9]+) msg\/s.*/\1/p" <<<"$codec"; }

echo
echo "================ summary (medians; compare ratios) ================"
hub_med=$(median "${hub_rates[@]}")
printf '%-34s %12s msg/s   runs: %s\n' "locus hub (inproc in, ipc out)" "$hub_med" "${hub_rates[*]}"
if [[ ${#proxy_rates[@]} -gt 0 ]]; then
    proxy_med=$(median "${proxy_rates[@]}")
    printf '%-34s %12s msg/s   runs: %s\n' "C zmq_proxy (ipc in, ipc out)" "$proxy_med" "${proxy_rates[*]}"
    printf '%-34s %12s          (target >= 0.90)\n' "hub / zmq_proxy" "$(ratio "$hub_med" "$proxy_med")"
fi
printf '%-34s %12s\n' "messages lost by the hub runs" "$lost_total"
enc=$(codec_rate encode); dec=$(codec_rate decode); val=$(codec_rate validate)
printf '%-34s %12s msg/s' "locus encode fix envelope" "$enc"
[[ -n "$orjson_dumps" ]] && printf '   orjson dumps %s/s  ratio %s' "$orjson_dumps" "$(ratio "$enc" "$orjson_dumps")"
echo
printf '%-34s %12s msg/s' "locus decode fix envelope" "$dec"
[[ -n "$orjson_loads" ]] && printf '   orjson loads %s/s  ratio %s' "$orjson_loads" "$(ratio "$dec" "$orjson_loads")"
echo
printf '%-34s %12s msg/s\n' "hub validation alone" "$val"

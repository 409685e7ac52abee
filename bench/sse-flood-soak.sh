#!/usr/bin/env bash
# Issue 49, item 7: what idle Server-Sent Event clients cost the `web` gateway. `locus run`
# replays the Cerknica walk ten times over at full speed once (the history, 5,000 events, is
# full within seconds) and, as a second device, the walk looping at 60x (a few events a
# second, for ever), through the standard, visits and region services into a `web` sink with
# its default limits. For each count in COUNTS, that many clients open PATH from 127.0.0.2,
# 127.0.0.3, ... (30 per address: the per-address limits do not stop them) and never read;
# they stay HOLD seconds, then close. Prints the daemon's RSS before, at its peak, at the end
# of the hold, 1 s and AFTER s after the close; what /state answered meanwhile (from
# 127.0.0.1); how long a normal client (GET /events from 127.0.0.1, every 2 s) waited for its
# first event; and the sink's counters. Not run in CI (it takes (HOLD + AFTER + 10) s per count).
#
# usage: bench/sse-flood-soak.sh                 (run from anywhere)
# env:   LOCUS=path/to/locus   default: build CONFIG in SCRATCH (under /tmp/locus/build.lock)
#        SCRATCH=.build  CONFIG=debug   COUNTS="500 2000"   HOLD=60   AFTER=15
#        CLIENT_PATH=/events?history=1   WEB=""  (more keys for the sink, e.g. ", history: 0")
#        LOOP_SPEED=60  the looping device's speed (max: a flood of events)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
COUNTS=${COUNTS:-500 2000}
HOLD=${HOLD:-60}
AFTER=${AFTER:-15}
CLIENT_PATH=${CLIENT_PATH:-/events?history=1}
if [ -z "${LOCUS:-}" ]; then
    SCRATCH=${SCRATCH:-.build}
    CONFIG=${CONFIG:-debug}
    echo "== building locus ($CONFIG, scratch $SCRATCH)"
    # One build at a time on the machine.
    flock /tmp/locus/build.lock swift build --scratch-path "$SCRATCH" -c "$CONFIG" --product locus 2>&1 | tail -1
    LOCUS="$(swift build --scratch-path "$SCRATCH" -c "$CONFIG" --show-bin-path)/locus"
fi

WORK=$(mktemp -d /tmp/locus-sse-flood.XXXXXX)
chmod 700 "$WORK"
LOCUS_PID=""
cleanup() { [[ -n "$LOCUS_PID" ]] && kill "$LOCUS_PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p -m 700 "$WORK/run"
python3 tools/repeat_recording.py data/recordings/cerknica-walk.jsonl "$WORK/walks.jsonl" 10
sed 's/gps0/gps1/g' data/recordings/cerknica-walk.jsonl > "$WORK/loop.jsonl"
cat > "$WORK/config.yaml" <<EOF
hub:
  state_directory: $WORK/state
sources:
  - {type: replay, id: walk, file: $WORK/walks.jsonl, speed: max}
  - {type: replay, id: loop, file: $WORK/loop.jsonl, speed: ${LOOP_SPEED:-60}, loop: true}
services:
  - {type: standard, id: here, distance_filter: 0}
  - {type: visits, id: visits}
  - type: region
    id: fences
    persist: false
    publish_conditions: true
    regions:
      - {id: car-park, center: {lat: 45.7702, lon: 14.3564}, radius: 150}
sinks:
  - {type: web, id: web, listen: "127.0.0.1:$PORT"${WEB:-}}
EOF

LOCUS_RUNTIME_DIR="$WORK/run" "$LOCUS" run "$WORK/config.yaml" >/dev/null 2>"$WORK/stderr" &
LOCUS_PID=$!
for _ in $(seq 1 150); do
    grep -q "serving the web gateway" "$WORK/stderr" && break
    kill -0 "$LOCUS_PID" 2>/dev/null || { echo "locus run ended early:" >&2; cat "$WORK/stderr" >&2; exit 1; }
    sleep 0.2
done
for _ in $(seq 1 300); do
    grep -q "plugin=walk reason=finished" "$WORK/stderr" && break
    sleep 0.2
done
sleep 5
echo "== locus run (pid $LOCUS_PID, $LOCUS) on 127.0.0.1:$PORT, history full, events flowing"

counters() {
    LOCUS_RUNTIME_DIR="$WORK/run" "$LOCUS" ctl status --json 2>/dev/null \
        | python3 -c 'import json, sys; d = json.load(sys.stdin)["result"]; print(json.dumps(next(p.get("counters") for p in d["plugins"] if p["plugin"] == "web")))' \
        || echo "(locus ctl status failed)"
}
for N in $COUNTS; do
    ADDRESSES=$(( (N + 29) / 30 ))   # 30 a address: below max_streams_per_address (32)
    echo "== $N clients on $CLIENT_PATH from $ADDRESSES addresses, never reading, held $HOLD s"
    RESULT=$(python3 bench/sse_flood.py --port "$PORT" --pid "$LOCUS_PID" --clients "$N" --hold "$HOLD" \
        --after "$AFTER" --addresses "$ADDRESSES" --path "$CLIENT_PATH")
    echo "$RESULT"
    python3 - "$RESULT" <<'EOF'
import json, sys
r = json.loads(sys.argv[1])
print(f"{r['clients']} clients: RSS before {r['rss_before_mb']} MB, peak {r['rss_peak_mb']} MB "
      f"(+{r['rss_peak_mb'] - r['rss_before_mb']:.1f}, {1024 * (r['rss_peak_mb'] - r['rss_before_mb']) / r['clients']:.0f} KB a client), "
      f"end of hold {r['rss_end_of_hold_mb']} MB, 1 s after close {r['rss_1s_after_close_mb']} MB, "
      f"{r['after_seconds']} s after {r['rss_after_mb']} MB; closed by the server {r['closed_by_server']} "
      f"(503: {r['refused_503']}); /state {r['state_answers']} slowest {r['state_slowest_ms']} ms; "
      f"first event median {r['first_event_ms_median']} ms, max {r['first_event_ms_max']} ms")
EOF
    echo "== the web sink's counters"
    counters
done
grep -E " error | critical " "$WORK/stderr" | head -5 || true

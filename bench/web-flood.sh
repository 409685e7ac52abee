#!/usr/bin/env bash
# Issue 29, item 6: the `web` gateway under CLIENTS Server-Sent Event clients that open
# /events?history=1 and never read (bench/web_flood.py). `locus run` replays the Cerknica walk
# ten times over (tools/repeat_recording.py: 2,960 fixes) at full speed, without looping,
# through the standard, visits and region services into a `web` sink with its default limits,
# so its history (5,000 events, about 2 MB) is full within seconds and then little more comes.
# The clients connect, stay HOLD seconds, then close. Prints the daemon's RSS before, at its
# peak and AFTER s after the close, the slowest and median GET /state answer while the clients
# were held, and the sink's counters. Not run in CI (it takes HOLD + 30 s and a few hundred MB).
#
# usage: bench/web-flood.sh                 (run from anywhere)
# env:   SCRATCH=.build-web     SwiftPM scratch directory
#        CONFIG=release         release or debug
#        CLIENTS=500            clients that never read
#        HOLD=60                seconds they stay connected
#        CLIENT_PATH=/events?history=1
#        BUILD=1                0: use the binary already in SCRATCH
#        AFTER=10               seconds after the close at which RSS is read again
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SCRATCH=${SCRATCH:-.build-web}
CONFIG=${CONFIG:-release}
CLIENTS=${CLIENTS:-500}
HOLD=${HOLD:-60}
CLIENT_PATH=${CLIENT_PATH:-/events?history=1}
cd "$ROOT"

if [[ "${BUILD:-1}" == 1 ]]; then
    echo "== building locus ($CONFIG, scratch $SCRATCH)"
    # One build at a time on the machine (the lock other scripts and developers take too).
    flock /tmp/locus-build.lock swift build --scratch-path "$SCRATCH" -c "$CONFIG" --product locus 2>&1 | tail -1
fi
BIN="$(swift build --scratch-path "$SCRATCH" -c "$CONFIG" --show-bin-path)"

WORK=$(mktemp -d /tmp/locus-web-flood.XXXXXX)
LOCUS_PID=""
cleanup() { [[ -n "$LOCUS_PID" ]] && kill "$LOCUS_PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p -m 700 "$WORK/run"
python3 tools/repeat_recording.py data/recordings/cerknica-walk.jsonl "$WORK/walks.jsonl" 10
cat > "$WORK/config.yaml" <<EOF
hub:
  state_directory: $WORK/state
sources:
  - {type: replay, id: walk, file: $WORK/walks.jsonl, speed: max}
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
  - {type: web, id: web, listen: "127.0.0.1:$PORT", max_connections_per_address: 100000, max_streams_per_address: 100000}
EOF
# A binary from before issue 29 does not know max_connections_per_address.
if ! "$BIN/locus" check "$WORK/config.yaml" >/dev/null 2>&1; then
    sed -i 's/, max_connections_per_address: 100000//' "$WORK/config.yaml"
fi
# One from before issue 49 does not know max_streams_per_address.
if ! "$BIN/locus" check "$WORK/config.yaml" >/dev/null 2>&1; then
    sed -i 's/, max_streams_per_address: 100000//' "$WORK/config.yaml"
fi

LOCUS_RUNTIME_DIR="$WORK/run" "$BIN/locus" run "$WORK/config.yaml" >/dev/null 2>"$WORK/stderr" &
LOCUS_PID=$!
for _ in $(seq 1 100); do
    grep -q "serving the web gateway" "$WORK/stderr" && break
    kill -0 "$LOCUS_PID" 2>/dev/null || { echo "locus run ended early:" >&2; cat "$WORK/stderr" >&2; exit 1; }
    sleep 0.2
done
echo "== locus run (pid $LOCUS_PID, $CONFIG) serving on 127.0.0.1:$PORT; waiting for the replay to fill the history"
for _ in $(seq 1 300); do
    grep -q "plugin=walk reason=finished" "$WORK/stderr" && break
    sleep 0.2
done
sleep 2
echo "== $CLIENTS clients on $CLIENT_PATH that never read, held $HOLD s, then closed; RSS 10 s later"
RESULT=$(python3 bench/web_flood.py --port "$PORT" --pid "$LOCUS_PID" --clients "$CLIENTS" --hold "$HOLD" --after "${AFTER:-10}" --path "$CLIENT_PATH")
echo "$RESULT"
echo "== the web sink's counters"
LOCUS_RUNTIME_DIR="$WORK/run" "$BIN/locus" ctl status --json 2>/dev/null \
    | python3 -c 'import json, sys; d = json.load(sys.stdin)["result"]; print(json.dumps(next(p.get("counters") for p in d["plugins"] if p["plugin"] == "web")))' \
    || echo "(locus ctl status failed)"
python3 - "$RESULT" "${AFTER:-10}" <<'EOF'
import json, sys
r = json.loads(sys.argv[1])
print(f"RSS before {r['rss_before_mb']} MB, peak {r['rss_peak_mb']} MB, {sys.argv[2]} s after close {r['rss_after_mb']} MB; "
      f"/state max {r['state_max_ms']} ms, median {r['state_median_ms']} ms over {r['state_answers']} answers "
      f"({r['state_failures']} failed; over 100 ms: {r['state_over_100ms_while_opening']} while the clients connected, {r['state_over_100ms_while_held']} while they were held); "
      f"{r['closed_by_server']} of {r['clients']} clients closed by the server")
EOF
grep -E "error|critical" "$WORK/stderr" | head -5 || true

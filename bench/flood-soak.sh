#!/usr/bin/env bash
# Issue 29's floods against `locus run`: each from one client, for DURATION seconds, then the
# client is gone; prints the daemon's resident memory (VmRSS) before, at its peak, and
# SETTLE seconds after, and what the hub counted. Not part of CI.
#
#  ingest         malformed messages (valid JSON text, not an envelope) pushed to the ingest socket
#  big-ingest     200 KB messages (under hub.max_message_bytes) that the hub must scan to the end
#                 to refuse: an envelope whose payload is cut before its closing brace
#  subscriptions  distinct subscriptions sent to the publish socket by one XSUB
#  replay-loop    a looping speed: max replay of an NMEA log (issue 29 item 8), no client
#
# usage: bench/flood-soak.sh [FLOOD ...]      (default: all four)
# env:   LOCUS=path/to/locus (default: a release build in SCRATCH)
#        SCRATCH=.build-release   DURATION=60   SETTLE=15
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
DURATION=${DURATION:-60}
SETTLE=${SETTLE:-15}
FLOODS=("$@")
[ ${#FLOODS[@]} -gt 0 ] || FLOODS=(ingest big-ingest subscriptions replay-loop)
if [ -z "${LOCUS:-}" ]; then
    SCRATCH=${SCRATCH:-.build-release}
    swift build --scratch-path "$SCRATCH" -c release --product locus 2>&1 | tail -1
    LOCUS="$(swift build --scratch-path "$SCRATCH" -c release --show-bin-path)/locus"
fi
PY=/usr/bin/python3   # Debian's, with python3-zmq
WORK=$(mktemp -d /tmp/locus-flood.XXXXXX)
chmod 700 "$WORK"
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$WORK"' EXIT

rss() { awk '/VmRSS/{print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }

cat > "$WORK/flood.py" <<'PY'
import sys, time, zmq
kind, work, duration = sys.argv[1], sys.argv[2], float(sys.argv[3])
ctx = zmq.Context()
end = time.time() + duration
sent = 0
if kind in ("ingest", "big-ingest"):
    s = ctx.socket(zmq.PUB)   # the hub's ingest is an XSUB
    s.setsockopt(zmq.SNDHWM, 0)
    s.connect("ipc://%s/ingest.sock" % work)
    if kind == "ingest":
        body = b'{"type":"obs.fix","version":1,"producer":"flood","note":"' + b"x" * 400 + b'"}'
    else:
        body = (b'{"type":"obs.fix","version":1,"producer":"flood","seq":1,"time":"2026-11-26T22:08:07.955Z",'
                b'"payload":{"lat":1,"lon":2,"mode":"2d","note":"' + b"x" * 200_000 + b'"}')
    # Without waiting: PUB never blocks; once the hub cuts this client off, what it sends goes nowhere.
    while time.time() < end:
        try:
            s.send_multipart([b"obs.fix.flood", body], zmq.NOBLOCK)
            sent += 1
        except zmq.Again:
            time.sleep(0.01)
else:
    s = ctx.socket(zmq.XSUB)
    s.setsockopt(zmq.SNDHWM, 0)
    s.connect("ipc://%s/publish.sock" % work)
    while time.time() < end:
        try:
            s.send(b"\x01obs.fix.flood-%09d" % sent, zmq.NOBLOCK)
            sent += 1
        except zmq.Again:
            time.sleep(0.01)
s.close(linger=0)
ctx.term()
print(sent)
PY

config() {
    cat <<YAML
hub:
  state_directory: $WORK/state
  external_topics: ["obs.fix."]
  ingest: ["ipc://$WORK/ingest.sock"]
  publish: ["ipc://$WORK/publish.sock"]
  control: "ipc://$WORK/control.sock"
services:
  - {type: standard, id: here}
YAML
    if [ "$1" = replay-loop ]; then
        cat <<YAML
sources:
  - {type: replay, id: nmea, file: $ROOT/Tests/LocusFormatsTests/Fixtures/bu353s4.log, speed: max, loop: true}
YAML
    fi
}

printf "%-14s %10s %10s %10s %12s  %s\n" flood "before MB" "peak MB" "after MB" sent "hub counters"
for flood in "${FLOODS[@]}"; do
    rm -rf "$WORK/state"
    config "$flood" > "$WORK/config.yaml"
    LOCUS_RUNTIME_DIR="$WORK" LOCUS_LOG_LEVEL=warning "$LOCUS" run "$WORK/config.yaml" > "$WORK/$flood.log" 2>&1 &
    pid=$!
    sleep 3
    before=$(rss $pid)
    sent="-"
    if [ "$flood" = replay-loop ]; then
        ( sleep "$DURATION" ) & client=$!
    else
        "$PY" "$WORK/flood.py" "$flood" "$WORK" "$DURATION" > "$WORK/sent" & client=$!
    fi
    peak=$before
    while kill -0 $client 2>/dev/null; do
        r=$(rss $pid); [ "$r" -gt "$peak" ] && peak=$r
        sleep 0.5
    done
    [ -s "$WORK/sent" ] && sent=$(cat "$WORK/sent")
    for _ in $(seq 1 $((SETTLE * 2))); do r=$(rss $pid); [ "$r" -gt "$peak" ] && peak=$r; sleep 0.5; done
    after=$(rss $pid)
    counters=$("$LOCUS" ctl status --endpoint "ipc://$WORK/control.sock" --json 2>/dev/null | "$PY" -c '
import json, sys
h = json.load(sys.stdin)["result"]["hub"]
print(" ".join("%s=%s" % (k, {d: n for d, n in v.items() if n} if isinstance(v, dict) else v) for k, v in sorted(h.items())))' || echo "?")
    kill -TERM $pid; wait $pid || true
    printf "%-14s %10.1f %10.1f %10.1f %12s  %s\n" "$flood" "$(echo "$before/1024" | bc -l)" "$(echo "$peak/1024" | bc -l)" "$(echo "$after/1024" | bc -l)" "$sent" "$counters"
    rm -f "$WORK/sent"
done

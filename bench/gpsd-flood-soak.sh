#!/usr/bin/env bash
# Issue 49 item 1: WATCHERS connections to a `locus run` gpsd-server sink send
# ?WATCH={"enable":true,"json":true}; and never read, for DURATION seconds, while a replay
# source plays an NMEA log at RATE epochs a second (1 is a real receiver). Prints the daemon's
# resident memory (VmRSS) before, at its peak and SETTLE seconds after the watchers leave, how
# long a real gpspipe waited for its first TPV (once at the start of the flood and once at its
# end), and the sink's counters. Not part of CI.
#
# usage: bench/gpsd-flood-soak.sh
# env:   LOCUS=path/to/locus (default: a build in SCRATCH)   SCRATCH=.build-release
#        CONFIGURATION=release (or debug)   DURATION=60   SETTLE=15   WATCHERS=64   RATE=1
#        LOG=path (default Tests/EndToEndTests/Fixtures/gpsd-server/sirfstarv-nmea.log)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
DURATION=${DURATION:-60}
SETTLE=${SETTLE:-15}
WATCHERS=${WATCHERS:-64}
RATE=${RATE:-1}
LOG=${LOG:-$ROOT/Tests/EndToEndTests/Fixtures/gpsd-server/sirfstarv-nmea.log}
if [ -z "${LOCUS:-}" ]; then
    SCRATCH=${SCRATCH:-.build-release}
    CONFIGURATION=${CONFIGURATION:-release}
    swift build --scratch-path "$SCRATCH" -c "$CONFIGURATION" --product locus 2>&1 | tail -1
    LOCUS="$(swift build --scratch-path "$SCRATCH" -c "$CONFIGURATION" --show-bin-path)/locus"
fi
WORK=$(mktemp -d /tmp/locus-gpsd-flood.XXXXXX)
chmod 700 "$WORK"
pid=""
cleanup() { [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
rss() { awk '/VmRSS/{print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
mb() { python3 -c "print(f'{$1 / 1024:.1f}')"; }
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')

cat > "$WORK/config.yaml" <<YAML
hub:
  state_directory: $WORK/state
  control: "ipc://$WORK/control.sock"
sources:
  - {type: replay, id: gps0, file: $LOG, speed: $RATE, loop: true}
sinks:
  - {type: gpsd-server, id: gpsd, listen: "127.0.0.1:$PORT"}
YAML

# The watchers: connect, WATCH, never read; hold on until told to stop (a file appears).
cat > "$WORK/watchers.py" <<'PY'
import os, socket, sys, time
port, n, stop = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
held = []
for i in range(n):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b'?WATCH={"enable":true,"json":true};')
    held.append(s)
print("connected", len(held), flush=True)
while not os.path.exists(stop):
    time.sleep(0.2)
PY

# Seconds until a real gpspipe prints its first TPV (or "refused"/"none" within 30 s).
first_tpv() {
    python3 - "$PORT" <<'PY'
import subprocess, sys, time
start = time.monotonic()
p = subprocess.Popen(["gpspipe", "-w", "127.0.0.1:" + sys.argv[1]], stdout=subprocess.PIPE, text=True)
result = "none"
try:
    while time.monotonic() - start < 30:
        line = p.stdout.readline()
        if not line:
            result = "closed"; break
        if '"Too many clients' in line:
            result = "refused"; break
        if '"class":"TPV"' in line:
            result = f"{time.monotonic() - start:.2f} s"; break
finally:
    p.kill()
print(result)
PY
}

LOCUS_RUNTIME_DIR="$WORK" LOCUS_LOG_LEVEL=warning "$LOCUS" run "$WORK/config.yaml" > "$WORK/locus.log" 2>&1 &
pid=$!
for _ in $(seq 100); do python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT)).close()" 2>/dev/null && break; sleep 0.1; done
sleep 2
before=$(rss $pid)
python3 "$WORK/watchers.py" "$PORT" "$WATCHERS" "$WORK/stop" > "$WORK/watchers.out" &
watchers=$!
for _ in $(seq 100); do grep -q connected "$WORK/watchers.out" 2>/dev/null && break; sleep 0.1; done
sleep 1
wait_start=$(first_tpv)
peak=$before
end=$((SECONDS + DURATION))
while [ $SECONDS -lt $end ]; do
    r=$(rss $pid); [ "$r" -gt "$peak" ] && peak=$r
    sleep 0.5
done
wait_end=$(first_tpv)
touch "$WORK/stop"
wait $watchers || true
for _ in $(seq 1 $((SETTLE * 2))); do r=$(rss $pid); [ "$r" -gt "$peak" ] && peak=$r; sleep 0.5; done
after=$(rss $pid)
counters=$("$LOCUS" ctl status --endpoint "ipc://$WORK/control.sock" --json 2>/dev/null | python3 -c '
import json, sys
for p in json.load(sys.stdin)["result"]["plugins"]:
    if p.get("plugin") == "gpsd":
        c = p.get("counters", {})
        keys = ["clients_opened", "clients_evicted", "clients_refused", "clients_refused_per_address", "clients_cut_off",
                "write_timeouts", "dropped_slow_client", "reports_sent", "fixes_taken"]
        print(" ".join("%s=%s" % (k, c.get(k, 0)) for k in keys))' || echo "?")
echo "== $WATCHERS watchers that never read, $DURATION s, $(basename "$LOG") at $RATE epochs/s"
printf "RSS MB: before %s  peak %s  after %s\n" "$(mb "$before")" "$(mb "$peak")" "$(mb "$after")"
printf "first TPV at a new gpspipe: %s with the watchers just connected, %s after %s s of them\n" "$wait_start" "$wait_end" "$DURATION"
echo "counters: $counters"

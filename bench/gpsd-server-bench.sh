#!/usr/bin/env bash
# Issue 34: the gpsd-server sink against gpsd itself, serving the same NMEA log to the same
# CLIENTS watching gpsd clients (gpspipe -w) for SECONDS.
#   - gpsd 3.22: gpsfake plays the log in a loop (-c CYCLE seconds per sentence) to its gpsd,
#     which decodes it and serves the clients;
#   - Locus: a replay source plays the same log in a loop at the same epoch rate, the NMEA
#     decoder decodes it, and the gpsd-server sink serves the clients.
# Reports each daemon's CPU (gpsd's process; Locus's whole process: hub, replay, sink), its
# resident memory, and the TPVs one client received per second.
#
# usage: bench/gpsd-server-bench.sh [CLIENTS] [SECONDS]   (default 50 20)
# env:   SCRATCH=.build-bench  LOCUS_BIN=path (a release binary instead of building one)
#        LOG=path (default Tests/EndToEndTests/Fixtures/gpsd-server/sirfstarv-nmea.log: 1 Hz,
#        epochs evenly spaced), EPOCH_SECONDS=1 (the log's time between epochs),
#        RATE=10 (epochs played per second: gpsfake's delay per sentence and the replay's speed
#        are set from it)
set -euo pipefail
CLIENTS=${1:-50}
DURATION=${2:-20}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SCRATCH=${SCRATCH:-.build-bench}
LOG=${LOG:-$ROOT/Tests/EndToEndTests/Fixtures/gpsd-server/sirfstarv-nmea.log}
EPOCH_SECONDS=${EPOCH_SECONDS:-1}
RATE=${RATE:-10}
sentences=$(grep -c '^\$' "$LOG")
epochs=$(grep -c '^\$G.RMC' "$LOG")
CYCLE=$(python3 -c "print($epochs / ($RATE * $sentences))")
cd "$ROOT"
if [ -n "${LOCUS_BIN:-}" ]; then
    LOCUS=$LOCUS_BIN
else
    swift build --scratch-path "$SCRATCH" -c release --product locus 2>&1 | tail -1
    LOCUS="$(swift build --scratch-path "$SCRATCH" -c release --show-bin-path)/locus"
fi
WORK=$(mktemp -d /tmp/locus-gpsd-bench.XXXXXX)
chmod 700 "$WORK"
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done; pkill -9 -f "gpsfake.*$WORK" 2>/dev/null || true; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
rss_mb() { awk '/VmHWM/ {printf "%.1f", $2 / 1024}' "/proc/$1/status"; }
hz=$(getconf CLK_TCK)
epochs_per_second=$RATE

# measure NAME PID PORT: CLIENTS gpspipe -w on PORT for DURATION s; the daemon's CPU and RSS.
measure() {
    local name=$1 pid=$2 port=$3 clients=()
    for i in $(seq "$CLIENTS"); do
        gpspipe -w "127.0.0.1:$port" > "$WORK/$name-$i.out" 2>/dev/null &
        clients+=($!)
    done
    sleep 2
    local before after first_lines
    before=$(ticks "$pid")
    first_lines=$(grep -c '"class":"TPV"' "$WORK/$name-1.out" || true)
    sleep "$DURATION"
    after=$(ticks "$pid")
    local tpvs=$(( $(grep -c '"class":"TPV"' "$WORK/$name-1.out" || true) - first_lines ))
    local cpu
    cpu=$(python3 -c "print(f'{100 * ($after - $before) / $hz / $DURATION:.1f}')")
    printf '%-6s clients %4d  CPU %6s %% of a core  peak RSS %6s MB  TPVs/s at one client %s\n' \
        "$name" "$CLIENTS" "$cpu" "$(rss_mb "$pid")" "$(python3 -c "print(round($tpvs / $DURATION, 1))")"
    for c in "${clients[@]}"; do kill "$c" 2>/dev/null || true; done
}

echo "== $CLIENTS clients, $DURATION s, $(basename "$LOG") at $epochs_per_second epochs/s"

# gpsd, fed by gpsfake (its gpsd is gpsfake's child).
GPSD_PORT=$(free_port)
python3 -c "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execvp('gpsfake', sys.argv[1:])" \
    gpsfake -q -P "$GPSD_PORT" -c "$CYCLE" "$LOG" > "$WORK/gpsfake.log" 2>&1 &
pids+=($!)
fake=$!
for _ in $(seq 100); do gpsd_pid=$(pgrep -P "$fake" -x gpsd || true); [ -n "$gpsd_pid" ] && break; sleep 0.1; done
[ -n "${gpsd_pid:-}" ] || { echo "gpsd did not start: $(cat "$WORK/gpsfake.log")" >&2; exit 1; }
measure gpsd "$gpsd_pid" "$GPSD_PORT"
kill -9 "$gpsd_pid" "$fake" 2>/dev/null || true

# Locus: the same log at the same epoch rate (the replay plays recorded time: epochs
# EPOCH_SECONDS apart, so speed = RATE × EPOCH_SECONDS).
LOCUS_PORT=$(free_port)
speed=$(python3 -c "print($RATE * $EPOCH_SECONDS)")
cat > "$WORK/config.yaml" <<YAML
hub:
  state_directory: $WORK/state
sources:
  - {type: replay, id: gps0, file: $LOG, speed: $speed, loop: true}
sinks:
  - {type: gpsd-server, id: gpsd, listen: "127.0.0.1:$LOCUS_PORT", max_clients: $((CLIENTS + 10))}
YAML
LOCUS_RUNTIME_DIR=$WORK "$LOCUS" run "$WORK/config.yaml" > "$WORK/locus.out" 2> "$WORK/locus.err" &
pids+=($!)
locus_pid=$!
for _ in $(seq 100); do grep -q "gpsd-server listening" "$WORK/locus.err" && break; sleep 0.1; done
measure locus "$locus_pid" "$LOCUS_PORT"

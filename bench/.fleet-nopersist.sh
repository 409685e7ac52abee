#!/usr/bin/env bash
# Issue 16, item 4: a fleet through a real Mosquitto. DEVICES simulated phones, each RATE fixes
# per second for SECONDS (OwnTracks JSON, bench/mqtt_fleet_load.c) → Mosquitto → Locus's mqtt
# source → a per-device standard service (distance_filter 0: every fix is an update) → Locus's
# mqtt sink (QoS 1, from the journal) → Mosquitto → an observer counting what comes back and
# timing a probe device. Reports fixes/s, end-to-end latency p50/p99, Locus's CPU and peak RSS,
# the CPU of the broker and of the load generator (which is also the observer: all three share
# the machine), and the loss (sent - received). Several RATEs find the saturation point.
#
# SERVICE=region instead: a per-device region service with one 100 m fence per device (DEVICES
# fences, plus one for the probes), each device going back and forth through its own fence
# (four region events per device per 60 fixes); the sink sends region events, and the loss is
# the events the service published (journal) minus what the observer received.
#
# usage: bench/mqtt-fleet-bench.sh [DEVICES] [SECONDS] [RATE...]   (default 10000 30 1)
# env:   SCRATCH=.build-bench  SERVICE=standard|region
#        LOCUS_BIN=path: run that binary instead of building one (before/after comparisons)
set -euo pipefail
DEVICES=${1:-10000}
SECONDS_=${2:-30}
shift 2 2>/dev/null || shift $#
RATES=("${@:-1}")
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SCRATCH=${SCRATCH:-.build-bench}
cd "$ROOT"
if [ -n "${LOCUS_BIN:-}" ]; then
    LOCUS=$LOCUS_BIN
    echo "== locus: $LOCUS"
else
    echo "== building locus (release, scratch $SCRATCH)"
    swift build --scratch-path "$SCRATCH" -c release --product locus 2>&1 | tail -1
    LOCUS="$(swift build --scratch-path "$SCRATCH" -c release --show-bin-path)/locus"
fi
WORK=$(mktemp -d /tmp/locus-fleet-bench.XXXXXX)
chmod 700 "$WORK"
gcc -O2 -o "$WORK/load" bench/mqtt_fleet_load.c -lmosquitto
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat > "$WORK/mosquitto.conf" <<CONF
listener $PORT 127.0.0.1
allow_anonymous true
persistence false
max_queued_messages 10000000
max_inflight_messages 1000
user $(id -un)
CONF
mosquitto -c "$WORK/mosquitto.conf" > "$WORK/broker.log" 2>&1 &
BROKER=$!
trap 'kill $BROKER 2>/dev/null; [ -n "${LOCUS_PID:-}" ] && kill $LOCUS_PID 2>/dev/null; true' EXIT
sleep 0.5
SERVICE=${SERVICE:-standard}
if [ "$SERVICE" = region ]; then
    # The load's fences (bench/mqtt_fleet_load.c: fence_lat, fence_lon), and the probes' fence.
    python3 - "$DEVICES" > "$WORK/fences.geojson" <<'PY'
import json, sys
n = int(sys.argv[1])
features = [{"type": "Feature", "id": f"f{d}", "geometry": {"type": "Point", "coordinates": [-170 + (d // 100) * 3.0, -60 + (d % 100) * 1.0]},
             "properties": {"radius": 100}} for d in range(n)]
features.append({"type": "Feature", "id": "probe", "geometry": {"type": "Point", "coordinates": [20, 10.02]}, "properties": {"radius": 5000}})
print(json.dumps({"type": "FeatureCollection", "features": features}))
PY
    SERVICE_YAML="  - {type: region, id: fences, per_device: true, file: $WORK/fences.geojson, min_duration: 3, persist: false}"
    SINK_TOPICS='["region."]'; OBSERVE="locus/server/region/"; LOAD_MODE=fences
else
    SERVICE_YAML="  - {type: standard, id: here, per_device: true, distance_filter: 0}"
    SINK_TOPICS='["location.update."]'; OBSERVE="locus/server/location/update/here/"; LOAD_MODE=walk
fi
cat > "$WORK/config.yaml" <<CONF
hub:
  state_directory: $WORK/state
sources:
  - {type: mqtt, id: phones, port: $PORT, subscribe: ["owntracks/bench/+"], max_rate: 0, max_devices: 1000000}
services:
$SERVICE_YAML
sinks:
  - {type: mqtt, id: up, port: $PORT, device: server, topics: $SINK_TOPICS, qos: 1, max_inflight: 1000}
CONF
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
echo "== $SERVICE: $DEVICES devices, $SECONDS_ s per rate, rates (fixes/s per device): ${RATES[*]}"
for rate in "${RATES[@]}"; do
    rm -rf "$WORK/state"
    LOCUS_RUNTIME_DIR="$WORK" $RUNENV "$LOCUS" run "$WORK/config.yaml" > "$WORK/locus.log" 2>&1 &
    LOCUS_PID=$!
    for _ in $(seq 100); do grep -q "connected to the MQTT broker" "$WORK/locus.log" 2>/dev/null && [ "$(grep -c 'connected to the MQTT broker' "$WORK/locus.log")" -ge 2 ] && break; sleep 0.1; done
    t0=$(ticks $LOCUS_PID); b0=$(ticks $BROKER); w0=$(date +%s.%N)
    result=$(/usr/bin/time -f "%U %S" -o "$WORK/load.time" "$WORK/load" "$PORT" "$DEVICES" "$rate" "$SECONDS_" "$OBSERVE" "$LOAD_MODE")
    t1=$(ticks $LOCUS_PID); b1=$(ticks $BROKER); w1=$(date +%s.%N)
    hwm=$(awk '/VmHWM/ { print $2 }' "/proc/$LOCUS_PID/status")
    counters=$(LOCUS_RUNTIME_DIR="$WORK" "$LOCUS" ctl status --json 2>/dev/null | python3 -c '
import json, sys
r = json.load(sys.stdin)["result"]
out = {}
for p in r["plugins"]:
    c = p.get("counters") or {}
    if p["plugin"] == "phones": out["source"] = {k: c.get(k, 0) for k in ("messages", "fixes_published", "devices")}
    if p["plugin"] == "up": out["sink"] = {k: c.get(k, 0) for k in ("published", "acknowledged")}
    if p["plugin"] == "fences": out["region"] = {k: c.get(k, 0) for k in ("fixes_ignored", "state_commits", "inputs_already_processed")}
out["drops"] = {k: v for k, v in (r.get("drops") or {}).items() if v}
print(json.dumps(out))')
    kill $LOCUS_PID; wait $LOCUS_PID 2>/dev/null || true; LOCUS_PID=
    cpu=$(awk -v a="$t0" -v b="$t1" -v w0="$w0" -v w1="$w1" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.0f", (b - a) / hz / (w1 - w0) * 100 }')
    broker_cpu=$(awk -v a="$b0" -v b="$b1" -v w0="$w0" -v w1="$w1" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.0f", (b - a) / hz / (w1 - w0) * 100 }')
    load_cpu=$(awk -v w0="$w0" -v w1="$w1" '{ printf "%.0f", ($1 + $2) / (w1 - w0) * 100 }' "$WORK/load.time")
    echo "rate $rate/s x $DEVICES: $result locus_cpu_percent=$cpu broker_cpu_percent=$broker_cpu load_and_observer_cpu_percent=$load_cpu peak_rss_kb=$hwm $counters"
done

#!/usr/bin/env bash
# Issue 33's benchmark: a fleet through NATS JetStream into a group of Locus servers and back.
# DEVICES simulated phones, each RATE fixes per second for SECONDS (OwnTracks JSON, plain NATS
# publishes from bench/nats_fleet_load.c) → the stream LOCUS_FIXES (file storage) → SERVERS
# `locus run` servers whose `nats` sources form one group (64 partitions) → a per-device region
# service with one 100 m fence per device (DEVICES fences, plus the probes' fence) → the `nats`
# sink → the stream LOCUS_EVENTS, where an observer counts events and times probes (each a new
# device entering the probe fence: its region.enter comes at once).
#
# With KILL=1 one server is killed (kill -9) halfway: the probe latency before and after, the
# longest probe wait after it (the takeover: its partitions are taken after lease_ttl) and,
# from the survivor's counters, how many partitions it took.
#
# Reports fixes/s sent and stored, probe latency p50/p99, the CPU of every Locus server and of
# nats-server, peak RSS, the servers' counters (fixes published, checkpoints, drops), the
# events stored in LOCUS_EVENTS (each once) and the loss: fixes in LOCUS_FIXES that no server
# published (per server `fixes_published` summed minus the stream's count; re-reads after a
# takeover count twice, so with KILL=1 it is a lower bound on duplicates, not loss).
# The anchor: nats-server's own rate on this machine for acknowledged JetStream publishes
# (`nats bench` is not in Debian): nats_fleet_load anchor, 200,000 messages.
#
# usage: bench/nats-fleet-bench.sh [DEVICES] [SECONDS] [RATE] [SERVERS]   (default 10000 30 1 2)
# env:   SCRATCH=.build-bench  KILL=1  LEASE_TTL=2  CHECKPOINT=1 (the source's checkpoint_interval)
#        LOCUS_BIN=path: run that binary instead of building one
set -euo pipefail
DEVICES=${1:-10000}
SECONDS_=${2:-30}
RATE=${3:-1}
SERVERS=${4:-2}
KILL=${KILL:-0}
LEASE_TTL=${LEASE_TTL:-2}
CHECKPOINT=${CHECKPOINT:-1}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SCRATCH=${SCRATCH:-.build-bench}
cd "$ROOT"
if [ -n "${LOCUS_BIN:-}" ]; then
    LOCUS=$LOCUS_BIN
else
    echo "== building locus (release, scratch $SCRATCH)"
    swift build --scratch-path "$SCRATCH" -c release --product locus 2>&1 | tail -1
    LOCUS="$(swift build --scratch-path "$SCRATCH" -c release --show-bin-path)/locus"
fi
echo "== locus: $LOCUS"
WORK=$(mktemp -d /tmp/locus-nats-bench.XXXXXX)
chmod 700 "$WORK"
gcc -O2 -o "$WORK/load" bench/nats_fleet_load.c -lnats
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
URL="nats://127.0.0.1:$PORT"
HTTP=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$WORK/js"
cat > "$WORK/nats.conf" <<CONF
listen: 127.0.0.1:$PORT
http: 127.0.0.1:$HTTP
jetstream { store_dir: "$WORK/js", max_file_store: 20G }
max_payload: 8MB
CONF
nats-server -c "$WORK/nats.conf" > "$WORK/nats.log" 2>&1 &
NATS=$!
PIDS=()
trap 'kill $NATS 2>/dev/null; for p in "${PIDS[@]}"; do kill -9 $p 2>/dev/null; done; true' EXIT
sleep 1
echo "== anchor: nats-server alone, acknowledged JetStream publishes"
"$WORK/load" anchor "$URL" 200000

python3 - "$DEVICES" > "$WORK/fences.geojson" <<'PY'
import json, sys
n = int(sys.argv[1])
features = [{"type": "Feature", "id": f"f{d}", "geometry": {"type": "Point", "coordinates": [-170 + (d // 100) * 3.0, -60 + (d % 100) * 1.0]},
             "properties": {"radius": 100}} for d in range(n)]
features.append({"type": "Feature", "id": "probe", "geometry": {"type": "Point", "coordinates": [20, 10.0]}, "properties": {"radius": 5000}})
print(json.dumps({"type": "FeatureCollection", "features": features}))
PY
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
for i in $(seq 0 $((SERVERS - 1))); do
    mkdir -p "$WORK/s$i"
    chmod 700 "$WORK/s$i"
    cat > "$WORK/s$i/config.yaml" <<CONF
hub:
  state_directory: $WORK/s$i/state
sources:
  - {type: nats, id: fleet, servers: ["$URL"], subjects: ["locus.fixes.>"], filter: "locus.fixes.*.>", device_tokens: [3],
     group: bench, partitions: 64, lease_ttl: $LEASE_TTL, checkpoint_interval: $CHECKPOINT, member: s$i, max_rate: 0,
     max_devices: 1000000}
services:
  - {type: region, id: fences, per_device: true, file: $WORK/fences.geojson, min_duration: 3, persist: ${PERSIST:-true}}
sinks:
  - {type: nats, id: events, servers: ["$URL"], topics: ["region."], queue_limit: 1000000}
CONF
    LOCUS_RUNTIME_DIR="$WORK/s$i" "$LOCUS" run "$WORK/s$i/config.yaml" > "$WORK/s$i/locus.log" 2>&1 &
    PIDS+=($!)
done
owned() {
    LOCUS_RUNTIME_DIR="$WORK/s$1" "$LOCUS" ctl status --json 2>/dev/null | python3 -c '
import json, sys
r = json.load(sys.stdin)["result"]
print(sum((p.get("counters") or {}).get("partitions_owned", 0) for p in r["plugins"] if p["plugin"] == "fleet"))' 2>/dev/null || echo 0
}
# Settled: the 64 partitions split evenly (a server that started first takes all, then gives
# its share to the others).
for _ in $(seq 120); do
    settled=1
    for i in $(seq 0 $((SERVERS - 1))); do
        [ "$(owned "$i")" -ge $((64 / SERVERS)) ] || settled=0
    done
    [ $settled = 1 ] && break
    sleep 0.5
done
sleep 2
status() {
    LOCUS_RUNTIME_DIR="$WORK/s$1" "$LOCUS" ctl status --json 2>/dev/null | python3 -c '
import json, sys
r = json.load(sys.stdin)["result"]
out = {}
for p in r["plugins"]:
    c = p.get("counters") or {}
    if p["plugin"] == "fleet":
        out["source"] = {k: c.get(k, 0) for k in ("fixes_published", "partitions_owned", "acquired", "lost", "pending", "checkpoints",
                                                   "states_checkpointed", "states_restored", "checkpoint_failures", "checkpoint_ms_max", "state_export_ms_max")}
    if p["plugin"] == "events": out["sink"] = {k: c.get(k, 0) for k in ("published", "duplicates", "dropped_queue_full")}
out["drops"] = {k: v for k, v in (r.get("drops") or {}).items() if v}
print(json.dumps(out))' || echo '{}'
}
echo "== $DEVICES devices x $RATE fix/s for $SECONDS_ s into $SERVERS servers (kill: $KILL, lease_ttl $LEASE_TTL s, checkpoint_interval $CHECKPOINT s)"
declare -A T0
for i in "${!PIDS[@]}"; do T0[$i]=$(ticks "${PIDS[$i]}"); done
n0=$(ticks $NATS); w0=$(date +%s.%N)
KILL_AT=0
[ "$KILL" = 1 ] && KILL_AT=$((SECONDS_ / 2))
"$WORK/load" load "$URL" "$DEVICES" "$RATE" "$SECONDS_" 64 "$KILL_AT" > "$WORK/load.out" &
LOAD=$!
if [ "$KILL" = 1 ]; then
    sleep "$KILL_AT"
    kill -9 "${PIDS[1]}"
    KILLED_AT=$(date +%s)
    echo "killed server s1 at ${KILL_AT} s ($(date -u +%T))"
fi
wait $LOAD
w1=$(date +%s.%N); n1=$(ticks $NATS)
hz=$(getconf CLK_TCK)
for i in "${!PIDS[@]}"; do
    p=${PIDS[$i]}
    [ -d "/proc/$p" ] || { echo "server s$i: killed"; continue; }
    t1=$(ticks "$p")
    cpu=$(awk -v a="${T0[$i]}" -v b="$t1" -v w0="$w0" -v w1="$w1" -v hz="$hz" 'BEGIN { printf "%.0f", (b - a) / hz / (w1 - w0) * 100 }')
    hwm=$(awk '/VmHWM/ { print $2 }' "/proc/$p/status")
    echo "server s$i: cpu_percent=$cpu peak_rss_kb=$hwm $(status "$i")"
done
echo "nats-server: cpu_percent=$(awk -v a="$n0" -v b="$n1" -v w0="$w0" -v w1="$w1" -v hz="$hz" 'BEGIN { printf "%.0f", (b - a) / hz / (w1 - w0) * 100 }')"
echo "load: $(cat "$WORK/load.out")"
if [ "$KILL" = 1 ]; then
    # The survivors' logs (1 s resolution): when they took the killed server's partitions.
    last=$(cat "$WORK"/s0/locus.log | grep "took partition" | awk '{ print $1 }' | sort | tail -1)
    echo "takeover: the last partition was taken at $last, $(( $(date -d "$last" +%s) - KILLED_AT )) s after the kill (lease_ttl $LEASE_TTL s)"
fi
sleep 5   # the servers finish what they read; the sink's last events reach the stream
python3 - "$HTTP" <<'PY' || true
import json, sys, urllib.request
j = json.load(urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/jsz?streams=true"))
counts = {s["name"]: s["state"]["messages"] for a in j.get("account_details", []) for s in a.get("stream_detail", [])}
print("streams: " + json.dumps({k: counts.get(k) for k in ("LOCUS_FIXES", "LOCUS_EVENTS")}))
PY

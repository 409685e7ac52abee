#!/bin/sh
# The fleet example's 3-node NATS cluster (n1.conf, n2.conf, n3.conf beside this file) on free
# loopback ports, its JetStream stores in a private directory: it runs beside a nats-server the
# machine already has (Debian's service on 4222). Prints the variables the README's commands
# use, so run it as
#
#   eval "$(examples/fleet/nats/start-cluster.sh)"
#
# which sets FLEET_DIR (default: a new private directory under $TMPDIR or /tmp; it holds each
# node's config, store, pid file and log), LOCUS_NATS_1..3 (the nodes' client URLs, which
# group-server.yaml reads) and LOCUS_NATS_MQTT_1..3 (their MQTT ports, for OwnTracks phones).
# Stop it with: for p in "$FLEET_DIR"/nats/n?.pid; do kill "$(cat "$p")"; done
set -eu
here=$(cd "$(dirname "$0")" && pwd)
nats_server=$(command -v nats-server || echo /usr/sbin/nats-server)
FLEET_DIR=${FLEET_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/fleet.XXXXXX")}
mkdir -m 700 -p "$FLEET_DIR/nats"
# Nine ports, each held until all are chosen so that none is handed out twice: for each of the
# shipped ports (clients 4222-4224, routes 6222-6224, MQTT 1884-1886), "shipped free".
ports=$(python3 -c '
import socket
held = []
for shipped in (4222, 4223, 4224, 6222, 6223, 6224, 1884, 1885, 1886):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); held.append(s)
    print(shipped, s.getsockname()[1])')
rewrite=""
for pair in $(echo "$ports" | tr ' ' ':'); do
    rewrite="$rewrite -e s/127\.0\.0\.1:${pair%%:*}\([^0-9]\|\$\)/127.0.0.1:${pair##*:}\1/g"
done
port_of() { echo "$ports" | sed -n "s/^$1 //p"; }
for n in 1 2 3; do
    conf=$FLEET_DIR/nats/n$n.conf
    # nN.conf as shipped, but on the ports chosen above, its store, pid file and log here.
    sed $rewrite -e "s|store_dir: .*|store_dir: \"$FLEET_DIR/nats/n$n\"|" "$here/n$n.conf" > "$conf"
    printf 'pid_file: "%s"\nlog_file: "%s"\n' "$FLEET_DIR/nats/n$n.pid" "$FLEET_DIR/nats/n$n.log" >> "$conf"
    nohup "$nats_server" -c "$conf" > /dev/null 2>&1 &
done
for n in 1 2 3; do
    client=$(port_of 422$((n + 1)))
    tries=0
    until python3 -c "import socket; socket.create_connection(('127.0.0.1', $client), 1)" 2>/dev/null; do
        tries=$((tries + 1))
        if [ "$tries" -ge 100 ]; then echo "nats-server n$n did not start; see $FLEET_DIR/nats/n$n.log" >&2; exit 1; fi
        sleep 0.1
    done
done
echo "the fleet's NATS cluster listens on 127.0.0.1:$(port_of 4222),$(port_of 4223),$(port_of 4224) (MQTT $(port_of 1884),$(port_of 1885),$(port_of 1886)); its files are in $FLEET_DIR/nats" >&2
echo "export FLEET_DIR=$FLEET_DIR LOCUS_NATS_1=nats://127.0.0.1:$(port_of 4222) LOCUS_NATS_2=nats://127.0.0.1:$(port_of 4223) LOCUS_NATS_3=nats://127.0.0.1:$(port_of 4224) LOCUS_NATS_MQTT_1=$(port_of 1884) LOCUS_NATS_MQTT_2=$(port_of 1885) LOCUS_NATS_MQTT_3=$(port_of 1886)"

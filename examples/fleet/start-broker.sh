#!/bin/sh
# The fleet example's Mosquitto broker (mosquitto.conf beside this file) on a free loopback
# port, in a private directory: it runs beside a broker the machine already has (Debian's
# mosquitto service on 1883). Prints the variables the README's commands use, so run it as
#
#   eval "$(examples/fleet/start-broker.sh)"     # sets FLEET_DIR and LOCUS_BROKER_PORT
#
# FLEET_DIR (default: a new private directory under $TMPDIR or /tmp) holds the broker's config,
# sessions and log and the Locus runtime directories; LOCUS_BROKER_PORT, when set, is the port
# to use. Run again with the same FLEET_DIR, it starts the same broker again (same port, its
# saved sessions). Stop it with: kill "$(cat "$FLEET_DIR/broker/mosquitto.pid")"
set -eu
here=$(cd "$(dirname "$0")" && pwd)
mosquitto=$(command -v mosquitto || echo /usr/sbin/mosquitto)
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
FLEET_DIR=${FLEET_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/fleet.XXXXXX")}
mkdir -m 700 -p "$FLEET_DIR/broker" "$FLEET_DIR/server" "$FLEET_DIR/device"
conf=$FLEET_DIR/broker/mosquitto.conf
if [ ! -f "$conf" ]; then
    # mosquitto.conf as shipped, but its listener, directory and log here, and run as the
    # user who starts it (started as root, Mosquitto would switch to `mosquitto`, which cannot
    # write this private directory).
    {
        echo "listener ${LOCUS_BROKER_PORT:-$(free_port)} 127.0.0.1"
        echo "persistence_location $FLEET_DIR/broker/"
        echo "pid_file $FLEET_DIR/broker/mosquitto.pid"
        echo "log_dest file $FLEET_DIR/broker/mosquitto.log"
        echo "user $(id -un)"
        grep -Ev '^[[:space:]]*(#|$|(listener|persistence_location|pid_file|log_dest|user)[[:space:]])' "$here/mosquitto.conf"
    } > "$conf"
fi
port=$(sed -n 's/^listener \([0-9]*\) .*/\1/p' "$conf")
"$mosquitto" -c "$conf" -d
tries=0
until python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null; do
    tries=$((tries + 1))
    if [ "$tries" -ge 100 ]; then echo "mosquitto did not start; see $FLEET_DIR/broker/mosquitto.log" >&2; exit 1; fi
    sleep 0.1
done
echo "the fleet's broker listens on 127.0.0.1:$port; its files are in $FLEET_DIR" >&2
echo "export FLEET_DIR=$FLEET_DIR LOCUS_BROKER_PORT=$port"

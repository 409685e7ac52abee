#!/usr/bin/env python3
"""Subscribe to an MQTT broker and write each message as one line, for end-to-end tests.

    mqtt_collect.py --port P --topic T --out PATH [--client-id ID] [--qos Q] [--max-wait S]
                    [--ready-file PATH] [--username U --password W] [--cafile F]

Each line is {"topic": <MQTT topic>, "retain": bool, "payload": <payload as text>} (with --v5
also "index": the locus-journal-index user property, when the message has one), flushed at
once, so a test can read the file while this runs. The session is persistent
(clean_session=False) with the given client id: when the broker keeps its state across a
restart (persistence true), messages published while this client was disconnected are
delivered once it is back, as a real fleet consumer would configure it. paho reconnects by
itself; the script runs until SIGTERM or --max-wait (default 120 s). Exit status 2: bad
arguments or a first connection that never succeeds.
"""

import argparse
import json
import signal
import sys
import time
from pathlib import Path

import paho.mqtt.client as mqtt


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--topic", action="append", required=True)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--client-id", default="locus-test-collector")
    p.add_argument("--qos", type=int, default=1)
    p.add_argument("--max-wait", type=float, default=120.0)
    p.add_argument("--ready-file", type=Path)
    p.add_argument("--username")
    p.add_argument("--password")
    p.add_argument("--cafile")
    p.add_argument("--v5", action="store_true", help="speak MQTT 5 (a session that outlives the connection)")
    args = p.parse_args(argv)

    out = args.out.open("a", encoding="utf-8")
    stop = {"now": False}
    signal.signal(signal.SIGTERM, lambda *_: stop.update(now=True))

    def on_connect(client, _userdata, flags, rc, _properties=None):
        # A resumed session keeps its subscriptions; subscribing again would make the broker
        # send the retained messages again, out of order with the queued ones.
        if rc == 0 and not flags.get("session present"):
            for t in args.topic:
                client.subscribe(t, qos=args.qos)

    def on_subscribe(_client, _userdata, _mid, _granted, _properties=None):
        if args.ready_file and not args.ready_file.exists():
            args.ready_file.write_text("ready\n")

    def on_connect_ready(client, userdata, flags, rc, properties=None):
        on_connect(client, userdata, flags, rc, properties)
        if rc == 0 and flags.get("session present") and args.ready_file and not args.ready_file.exists():
            args.ready_file.write_text("ready\n")

    def on_message(_client, _userdata, msg):
        line = {"topic": msg.topic, "retain": bool(msg.retain), "payload": msg.payload.decode("utf-8", "replace")}
        for name, value in getattr(getattr(msg, "properties", None), "UserProperty", None) or []:
            if name == "locus-journal-index":
                line["index"] = int(value)
        out.write(json.dumps(line) + "\n")
        out.flush()

    if args.v5:
        from paho.mqtt.packettypes import PacketTypes
        from paho.mqtt.properties import Properties
        client = mqtt.Client(client_id=args.client_id, protocol=mqtt.MQTTv5)
        connect_properties = Properties(PacketTypes.CONNECT)
        connect_properties.SessionExpiryInterval = 3600
        connect_options = {"clean_start": False, "properties": connect_properties}
    else:
        client = mqtt.Client(client_id=args.client_id, clean_session=False)
        connect_options = {}
    if args.username:
        client.username_pw_set(args.username, args.password)
    if args.cafile:
        client.tls_set(ca_certs=args.cafile)
    client.on_connect = on_connect_ready
    client.on_subscribe = on_subscribe
    client.on_message = on_message
    client.reconnect_delay_set(min_delay=0.1, max_delay=0.5)
    deadline = time.monotonic() + args.max_wait
    while True:
        try:
            client.connect("127.0.0.1", args.port, keepalive=10, **connect_options)
            break
        except OSError:
            if time.monotonic() > deadline:
                print("cannot connect to the broker", file=sys.stderr)
                return 2
            time.sleep(0.1)
    client.loop_start()
    while not stop["now"] and time.monotonic() < deadline:
        time.sleep(0.05)
    client.loop_stop()
    client.disconnect()
    out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

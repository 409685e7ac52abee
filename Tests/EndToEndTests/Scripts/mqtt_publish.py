#!/usr/bin/env python3
"""Publish MQTT messages for end-to-end tests: each line of a JSON-lines plan is
{"topic": T, "payload": text | null, "payload_file": path | null, "count": N (default 1)}.

    mqtt_publish.py --port P PLAN.jsonl [--qos Q]

payload_file publishes the file's bytes as they are (OwnTracks' example files); payload the
text's UTF-8. Waits until every message is acknowledged (QoS 1), then exits 0.
"""

import argparse
import json
import sys

import paho.mqtt.client as mqtt


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--qos", type=int, default=1)
    p.add_argument("plan")
    args = p.parse_args(argv)
    client = mqtt.Client(client_id="locus-test-publisher")
    client.connect("127.0.0.1", args.port, keepalive=10)
    client.loop_start()
    infos = []
    for line in open(args.plan, encoding="utf-8"):
        step = json.loads(line)
        if step.get("payload_file"):
            payload = open(step["payload_file"], "rb").read()
        else:
            payload = step["payload"].encode("utf-8")
        for _ in range(step.get("count", 1)):
            infos.append(client.publish(step["topic"], payload, qos=args.qos))
    for info in infos:
        info.wait_for_publish(timeout=30)
    client.loop_stop()
    client.disconnect()
    print(len(infos))
    return 0


if __name__ == "__main__":
    sys.exit(main())

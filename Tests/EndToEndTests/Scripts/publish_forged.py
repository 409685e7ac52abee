#!/usr/bin/env python3
"""Publishes one message per (topic, producer) pair given, the way a forger would.

usage: publish_forged.py ENDPOINT TOPIC:PRODUCER...
Waits for the hub's subscription first. Each body is a valid envelope whose type is the
topic's first two segments where that is a known type (region.enter, status.plugin, obs.fix).
"""
import sys
import time

import zmq

PAYLOADS = {
    "obs.fix": '{"source":"x","mode":"2d","lat":45,"lon":14}',
    # docs/protocol.md 5.14's example: in-process subscribers decode it, so it must be whole.
    "region.enter": ('{"region":"lake","monitor":"fences","state":"satisfied","previous_state":"unsatisfied",'
                     '"source":"gps0","fix_time":"2024-05-17T08:00:00.000Z","lat":45.75,"lon":14.36,"distance":42.26,'
                     '"confidence":1,"since":"2024-05-17T08:00:00.000Z","assumed":false,"detected_after_restart":false,'
                     '"properties":{}}'),
    "status.plugin": '{"plugin":"walk","kind":"source","plugin_type":"replay","state":"failed","reason":"forged"}',
}

endpoint = sys.argv[1]
ctx = zmq.Context()
pub = ctx.socket(zmq.XPUB)
pub.connect(endpoint)
if not pub.poll(10000):
    sys.exit("no subscription from the hub within 10 s")
pub.recv()
for seq, item in enumerate(sys.argv[2:], start=1):
    topic, producer = item.split(":")
    kind = "status.plugin" if topic.startswith("status.") else ".".join(topic.split(".")[:2])
    # The payload names what its topic names (the hub refuses an outside payload whose source
    # or plugin is not its topic's): a forger gets no further by making them differ.
    payload = PAYLOADS[kind]
    if kind == "obs.fix":
        payload = payload.replace('"source":"x"', '"source":"%s"' % topic.split(".")[2])
    if kind == "status.plugin":
        payload = payload.replace('"plugin":"walk"', '"plugin":"%s"' % topic.split(".")[1])
    body = '{"type":"%s","version":1,"producer":"%s","seq":%d,"time":"2024-05-17T08:00:00.000Z","payload":%s}' % (
        kind, producer, seq, payload)
    pub.send_multipart([topic.encode(), body.encode()])
    time.sleep(0.05)
pub.close(linger=2000)
ctx.term()
print(f"sent {len(sys.argv) - 2}")

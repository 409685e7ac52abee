#!/usr/bin/env python3
"""Publishes malformed messages, framed by valid ones, into a Locus hub's ingest endpoint.

usage: inject_malformed.py ENDPOINT PRODUCER
Waits for the hub's subscription (XPUB sees the \\x01 frame), then sends, in order:
a valid fix (seq 1), one message of each malformed kind, a valid fix (seq 2).
"""
import json
import sys
import time

import zmq

endpoint, producer = sys.argv[1], sys.argv[2]
ctx = zmq.Context()
pub = ctx.socket(zmq.XPUB)
pub.setsockopt(zmq.SNDHWM, 0)
pub.connect(endpoint)
if not pub.poll(10000):
    sys.exit("no subscription from the hub within 10 s")
pub.recv()


def fix(seq):
    return json.dumps({
        "type": "obs.fix", "version": 1, "producer": producer, "seq": seq,
        "time": "2024-05-17T08:00:0%d.000Z" % seq,
        "payload": {"source": producer, "mode": "2d", "lat": 0.001, "lon": 0.002},
    }).encode()


topic = ("obs.fix." + producer).encode()
pub.send_multipart([topic, fix(1)])
malformed = [
    [topic],                                   # wrong_frame_count
    [topic, fix(9), b"extra"],                 # wrong_frame_count
    [b"Obs Fix", fix(9)],                      # bad_topic
    [topic, b"{not json"],                     # not_json
    [topic, b'{"type":"obs.fix"}'],            # missing_field
    [topic, fix(9).replace(b'"obs.fix"', b'"acme.unknown"')],  # unknown_type
    [topic, b"{" + b'"x":"' + b"a" * 300000 + b'"}'],  # too_large
]
for frames in malformed:
    pub.send_multipart(frames)
pub.send_multipart([topic, fix(2)])
time.sleep(0.3)
pub.close(linger=1000)
ctx.term()
print("sent %d malformed and 2 valid messages" % len(malformed))

#!/usr/bin/env python3
"""Floods a Locus hub's ingest endpoint with large messages it must read to the end to refuse.

usage: flood_large.py ENDPOINT COUNT BYTES
Waits for the hub's subscription, then sends COUNT envelopes of about BYTES bytes each as fast
as it can, every one cut before its closing brace (the hub drops it as not_json only after
scanning it). Queues without limit on its own side (SNDHWM 0), so every message reaches the
hub eventually: what the hub cannot take yet waits in this process, not in the daemon.
Prints the count sent once everything has gone out.
"""
import sys

import zmq

endpoint, count, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ctx = zmq.Context()
pub = ctx.socket(zmq.XPUB)
pub.setsockopt(zmq.SNDHWM, 0)
pub.connect(endpoint)
if not pub.poll(10000):
    sys.exit("no subscription from the hub within 10 s")
pub.recv()
body = (b'{"type":"obs.fix","version":1,"producer":"flood","seq":1,"time":"2026-11-26T22:08:07.955Z",'
        b'"payload":{"lat":1,"lon":2,"mode":"2d","note":"' + b"x" * size + b'"}')
for _ in range(count):
    pub.send_multipart([b"obs.fix.flood", body])
pub.close(linger=120_000)
ctx.term()
print(count)

#!/usr/bin/env python3
"""Publishes COUNT obs.fix messages of producer PRODUCER on the hub's ingest, INTERVAL s apart,
each 50 m north of the one before, with sequence numbers and event times from FIRST on.

usage: publish_moving_fixes.py ENDPOINT PRODUCER FIRST COUNT INTERVAL
Waits for the hub's subscription first. Every fix moves, so a location service emits an
event for each (the disk-full tests count what its failed commits lose).
"""
import sys
import time

import zmq

endpoint, producer = sys.argv[1], sys.argv[2]
first, count, interval = int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
ctx = zmq.Context()
pub = ctx.socket(zmq.XPUB)
pub.connect(endpoint)
if not pub.poll(10000):
    sys.exit("no subscription from the hub within 10 s")
pub.recv()
topic = ("obs.fix." + producer).encode()
for n in range(first, first + count):
    body = ('{"type":"obs.fix","version":1,"producer":"%s","seq":%d,"time":"2024-05-17T08:%02d:%02d.000Z",'
            '"payload":{"source":"%s","mode":"3d","lat":%.6f,"lon":14.0,"h_accuracy":5}}'
            % (producer, n, n // 60, n % 60, producer, 45.0 + n * 0.00045))
    pub.send_multipart([topic, body.encode()])
    time.sleep(interval)
pub.close(linger=1000)
ctx.term()
print(f"sent {count}")

#!/usr/bin/env python3
"""Publishes obs.fix messages with non-finite and off-the-globe coordinates, framed by valid ones.

usage: inject_out_of_range.py ENDPOINT PRODUCER
Waits for the hub's subscription, then sends, in order, seq 1..6: a valid fix, lat 1e999,
lat -1e999, lat 91, lon 181, a valid fix. Written as raw JSON text: Python's json would write
the infinities as `Infinity`, which is not JSON at all, while 1e999 is valid JSON that reads
as infinity in most parsers.
"""
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


def fix(seq, lat, lon):
    return ('{"type":"obs.fix","version":1,"producer":"%s","seq":%d,"time":"2024-05-17T08:00:0%d.000Z",'
            '"payload":{"source":"%s","mode":"2d","lat":%s,"lon":%s,"h_accuracy":5}}'
            % (producer, seq, seq, producer, lat, lon)).encode()


topic = ("obs.fix." + producer).encode()
for seq, (lat, lon) in enumerate([("0.001", "0.002"), ("1e999", "0.002"), ("-1e999", "0.002"),
                                  ("91", "0.002"), ("0.001", "181"), ("0.003", "0.004")], start=1):
    pub.send_multipart([topic, fix(seq, lat, lon)])
time.sleep(0.3)
pub.close(linger=1000)
ctx.term()
print("sent 2 valid and 4 out-of-range fixes")

"""Subscribes to ENDPOINT and writes every message's body, one per line, flushed at once.

usage: record_bodies.py ENDPOINT OUT PREFIX...
Keeps running (ZeroMQ reconnects by itself when the daemon comes back) until SIGTERM.
"""
import signal
import sys

import zmq

endpoint, out = sys.argv[1], sys.argv[2]
ctx = zmq.Context()
sub = ctx.socket(zmq.SUB)
sub.setsockopt(zmq.RCVHWM, 0)
sub.connect(endpoint)
for prefix in sys.argv[3:]:
    sub.setsockopt(zmq.SUBSCRIBE, prefix.encode())
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
with open(out, "ab", buffering=0) as f:
    print("ready", flush=True)
    while True:
        if sub.poll(200):
            topic, body = sub.recv_multipart()
            f.write(body + b"\n")

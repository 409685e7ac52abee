#!/usr/bin/env python3
"""One XSUB client sending N distinct subscriptions to a running locus, to measure what such
a client costs the daemon (issue 12 item 9). Prints the daemon's VmHWM/VmRSS (MB) at the start,
after sending, every 5 s for SECONDS, and after closing.

usage: /usr/bin/python3 tools/subscription_flood.py LOCUS_PID PUBLISH_ENDPOINT N SECONDS [PAD]

Each subscription is `obs.fix.flood-<i><PAD x's>.`; PAD (default 0) makes them longer (ZeroMQ
keeps about 60 bytes per prefix byte). Then `locus ctl status` shows hub.subscribers_cut_off and
dropped.subscription_limit."""
import sys
import time

import zmq

pid, endpoint, n, seconds = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
pad = b"x" * (int(sys.argv[5]) if len(sys.argv) > 5 else 0)
def mem():
    d = {}
    for line in open(f"/proc/{pid}/status"):
        k, _, v = line.partition(":")
        if k in ("VmRSS", "VmHWM"): d[k] = int(v.split()[0]) // 1024
    return d
print("start", mem(), flush=True)
ctx = zmq.Context()
s = ctx.socket(zmq.XSUB)
s.setsockopt(zmq.SNDHWM, 0)
s.connect(endpoint)
t0 = time.time()
for i in range(n):
    s.send(b"\x01obs.fix.flood-%d%s." % (i, pad))
print(f"sent {n} in {time.time()-t0:.1f}s", mem(), flush=True)
end = time.time() + seconds
while time.time() < end:
    time.sleep(5)
    print(f"{time.time()-t0:5.0f}s", mem(), flush=True)
s.close(0)
time.sleep(2)
print("after close", mem(), flush=True)

#!/usr/bin/env python3
"""Publishes obs.fix messages of one producer with the given sequence numbers, 0.3 s apart.

usage: publish_sequence.py ENDPOINT PRODUCER SEQ...
Waits for the hub's subscription first. The numbers are sent as given, gaps and restarts
included: a subscriber cannot tell a producer's jump from a loss, which is what
`locus sub`'s gap report is tested with.
"""
import sys
import time

import zmq

endpoint, producer, seqs = sys.argv[1], sys.argv[2], [int(s) for s in sys.argv[3:]]
ctx = zmq.Context()
pub = ctx.socket(zmq.XPUB)
pub.connect(endpoint)
if not pub.poll(10000):
    sys.exit("no subscription from the hub within 10 s")
pub.recv()
topic = ("obs.fix." + producer).encode()
for i, seq in enumerate(seqs):
    body = ('{"type":"obs.fix","version":1,"producer":"%s","seq":%d,"time":"2024-05-17T08:00:%02d.000Z",'
            '"payload":{"source":"%s","mode":"2d","lat":45,"lon":14}}' % (producer, seq, i, producer))
    pub.send_multipart([topic, body.encode()])
    time.sleep(0.3)
pub.close(linger=1000)
ctx.term()
print(f"sent {len(seqs)}")

#!/usr/bin/env python3
"""Publishes obs.fix messages of one producer with the given sequence numbers, 0.3 s apart.

usage: publish_sequence.py ENDPOINT PRODUCER SEQ[/TOPIC_SEQ]...
Waits for the hub's subscription first. The numbers are sent as given, gaps and restarts
included: a subscriber cannot tell a producer's jump from a loss, which is what
`locus sub`'s gap report is tested with. SEQ/TOPIC_SEQ also writes `topic_seq` (protocol 4.2).
"""
import sys
import time

import zmq

endpoint, producer = sys.argv[1], sys.argv[2]
seqs = [tuple(int(n) for n in a.split("/")) for a in sys.argv[3:]]
ctx = zmq.Context()
pub = ctx.socket(zmq.XPUB)
pub.connect(endpoint)
if not pub.poll(10000):
    sys.exit("no subscription from the hub within 10 s")
pub.recv()
topic = ("obs.fix." + producer).encode()
for i, numbers in enumerate(seqs):
    topic_seq = ',"topic_seq":%d' % numbers[1] if len(numbers) > 1 else ""
    body = ('{"type":"obs.fix","version":1,"producer":"%s","seq":%d%s,"time":"2024-05-17T08:00:%02d.000Z",'
            '"payload":{"source":"%s","mode":"2d","lat":45,"lon":14}}' % (producer, numbers[0], topic_seq, i, producer))
    pub.send_multipart([topic, body.encode()])
    time.sleep(0.3)
pub.close(linger=1000)
ctx.term()
print(f"sent {len(seqs)}")

#!/usr/bin/env python3
"""Four pyzmq subscribers against one CURVE publish endpoint, for CurveEndToEndTests.

    curve_clients.py ENDPOINT KEYDIR SECONDS

KEYDIR holds server.key, alice.key_secret (authorized), eve.key_secret (not authorized) and
wrong.key (a server key that is not the server's), all written by `locus keygen` and read here
with pyzmq's own zmq.auth.load_certificate. Prints one JSON object: messages received by each
of alice, eve, plain (no CURVE) and wrong_server within SECONDS.
"""
import json
import sys
import time

import zmq
import zmq.auth

endpoint, keydir, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
server_public, _ = zmq.auth.load_certificate(f"{keydir}/server.key")
wrong_public, _ = zmq.auth.load_certificate(f"{keydir}/wrong.key")
ctx = zmq.Context()


def subscriber(client, server_key):
    s = ctx.socket(zmq.SUB)
    s.linger = 0
    if client:
        public, secret = zmq.auth.load_certificate(f"{keydir}/{client}.key_secret")
        # The three options the README's secure example shows.
        s.curve_secretkey = secret
        s.curve_publickey = public
        s.curve_serverkey = server_key
    s.subscribe(b"")
    s.connect(endpoint)
    return s


sockets = {
    "alice": subscriber("alice", server_public),
    "eve": subscriber("eve", server_public),
    "plain": subscriber(None, None),
    "wrong_server": subscriber("alice", wrong_public),
}
counts = {name: 0 for name in sockets}
poller = zmq.Poller()
for s in sockets.values():
    poller.register(s, zmq.POLLIN)
deadline = time.monotonic() + seconds
while time.monotonic() < deadline:
    for s, _ in poller.poll(100):
        name = next(n for n, x in sockets.items() if x is s)
        frames = s.recv_multipart()
        assert len(frames) == 2
        counts[name] += 1
print(json.dumps(counts))

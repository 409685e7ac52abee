#!/usr/bin/env python3
"""A CURVE subscriber in plain pyzmq: prints `topic  body` for each message of a Locus hub's
encrypted tcp publish endpoint (README.md beside this file sets one up).

    subscriber.py --endpoint tcp://HUB:5556 --server-key server.key --key alice.key_secret [PREFIX...]
"""
import argparse

import zmq
import zmq.auth

parser = argparse.ArgumentParser(description="Print messages from a Locus hub's CURVE endpoint.")
parser.add_argument("--endpoint", required=True, help="the hub's publish endpoint, e.g. tcp://hub.example:5556")
parser.add_argument("--server-key", required=True, help="the server's public certificate (server.key)")
parser.add_argument("--key", required=True, help="this client's secret certificate (NAME.key_secret)")
parser.add_argument("prefixes", nargs="*", default=[""], metavar="PREFIX", help="topic prefixes (default: all)")
args = parser.parse_args()

server_public, _ = zmq.auth.load_certificate(args.server_key)
public, secret = zmq.auth.load_certificate(args.key)
if secret is None:
    parser.error(f"{args.key} has no secret key: give the NAME.key_secret file, not NAME.key")

sub = zmq.Context().socket(zmq.SUB)
sub.curve_secretkey = secret         # who we are: the server knows us by our public key's file name
sub.curve_publickey = public
sub.curve_serverkey = server_public  # who the server must be: no one else can complete the handshake
for prefix in args.prefixes:
    sub.subscribe(prefix)
sub.connect(args.endpoint)           # after the keys: the handshake uses them
try:
    while True:
        topic, body = sub.recv_multipart()  # a key the server refused means silence, not an error
        print(topic.decode(), body.decode(), sep="  ", flush=True)
except KeyboardInterrupt:
    pass

"""Talks to a catch-up socket (docs/protocol.md 13.2) and prints what it answers, one line each.

usage: catchup_requests.py ENDPOINT
  snapshot <topic> <state>   for each event of a catchup.snapshot
  error <text>               for each refused request
  status ok                  when every answer was a valid catchup.page or catchup.error
"""
import json
import os
import sys

import jsonschema
import zmq

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..")
SCHEMAS = os.path.join(ROOT, "schemas", "protocol")


def schema(name):
    path = os.path.join(SCHEMAS, name + ".schema.json")
    return json.load(open(path, encoding="utf-8")) if os.path.exists(path) else None


def ask(dealer, request):
    dealer.send(request if isinstance(request, bytes) else json.dumps(request).encode())
    if not dealer.poll(15000):
        sys.exit("no answer to %r" % (request,))
    frames = dealer.recv_multipart()
    header = json.loads(frames[0])
    s = schema(header.get("type", "?"))
    if s is not None:
        jsonschema.validate(header, s)
    return header, frames[1:]


def main():
    dealer = zmq.Context().socket(zmq.DEALER)
    dealer.connect(sys.argv[1])
    header, frames = ask(dealer, {"type": "catchup.snapshot", "version": 1, "topics": ["region."]})
    assert header["type"] == "catchup.page" and header["end"] and header["events"] * 2 == len(frames), header
    for k in range(0, len(frames), 2):
        envelope = json.loads(frames[k + 1])
        print("snapshot", frames[k].decode(), envelope["payload"]["state"])
    for request in ({"type": "catchup.request", "version": 2},
                    {"type": "catchup.nothing", "version": 1},
                    {"type": "catchup.request", "version": 1, "token": "sync.never-subscribed"},
                    {"type": "catchup.request", "version": 1, "limit": 0},
                    b"\xff not json"):
        header, frames = ask(dealer, request)
        assert header["type"] == "catchup.error" and not frames, header
        print("error", header["error"])
    print("status ok")


main()

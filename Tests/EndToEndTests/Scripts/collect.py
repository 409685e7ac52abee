#!/usr/bin/env python3
"""Collect messages from a Locus hub for end-to-end tests.

    collect.py --endpoint E [--prefix P]... [--count N] [--idle S] [--max-wait S]
               [--ready-file PATH] [--out PATH]

Subscribes to the hub's publish endpoint and writes every message received as a recording
line, `{"topic":"…","envelope":<body exactly as received>}`, the format `locus record` writes,
so a test can compare the output with an expected .jsonl file byte for byte.

It stops, and exits 0, at the first of:
- --count N messages received;
- --idle S seconds without a message, once at least one has arrived;
- --max-wait S seconds after start (default 60, so a broken test cannot hang forever);
- SIGTERM or SIGINT.
Whatever was received is written in every case; a test decides whether it is enough.
Exit status 2 means bad arguments or a socket error.

Readiness: a test must not start publishing before the subscription has reached the hub, or
the first messages are lost (ZeroMQ keeps nothing for subscribers that are not there yet).
With --ready-file, the file is created 0.3 s after connecting and subscribing: on a local
ipc or tcp endpoint the subscription reaches the hub well within that.
"""

import argparse
import json
import signal
import sys
import time
from pathlib import Path

import zmq

READY_DELAY_S = 0.3
POLL_SLICE_MS = 50


class Stop(Exception):
    """Raised from the SIGTERM handler to leave the receive loop at once."""


def parse_args(argv):
    parser = argparse.ArgumentParser(description="Collect Locus bus messages as recording lines.")
    parser.add_argument("--endpoint", required=True, help="the hub's publish endpoint")
    parser.add_argument("--prefix", action="append", default=[],
                        help="topic prefix to subscribe to (repeatable; default everything)")
    parser.add_argument("--count", type=int, help="stop after N messages")
    parser.add_argument("--idle", type=float, help="stop after S seconds of silence once a message arrived")
    parser.add_argument("--max-wait", type=float, default=60.0, help="overall deadline in seconds (default 60)")
    parser.add_argument("--ready-file", type=Path, help="create this file once subscribed")
    parser.add_argument("--out", type=Path, help="write recording lines here (default stdout)")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)

    def on_term(_signum, _frame):
        raise Stop()

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)

    try:
        out = open(args.out, "wb") if args.out else sys.stdout.buffer
    except OSError as e:
        print(f"collect.py: {args.out}: {e.strerror}", file=sys.stderr)
        return 2
    ctx = zmq.Context()
    sub = ctx.socket(zmq.SUB)
    sub.setsockopt(zmq.LINGER, 0)
    received = 0
    try:
        sub.connect(args.endpoint)
        for prefix in args.prefix or [""]:
            sub.setsockopt(zmq.SUBSCRIBE, prefix.encode("utf-8"))
        start = time.monotonic()
        deadline = start + args.max_wait
        last = None
        if args.ready_file:
            # Messages that arrive during the delay are kept: the socket queues them.
            time.sleep(READY_DELAY_S)
            args.ready_file.touch()
        while args.count is None or received < args.count:
            now = time.monotonic()
            if now >= deadline:
                break
            if last is not None and args.idle is not None and now - last >= args.idle:
                break
            if not sub.poll(POLL_SLICE_MS):
                continue
            frames = sub.recv_multipart()
            last = time.monotonic()
            if len(frames) != 2:
                print(f"collect.py: skipped a message with {len(frames)} frames", file=sys.stderr)
                continue
            topic, body = frames
            # The body is inserted unchanged, as locus record does.
            out.write(b'{"topic":' + json.dumps(topic.decode("utf-8", "replace")).encode()
                      + b',"envelope":' + body + b"}\n")
            out.flush()  # so a test killing us with SIGKILL still finds what arrived
            received += 1
    except Stop:
        pass
    except zmq.ZMQError as e:
        print(f"collect.py: {args.endpoint}: {e}", file=sys.stderr)
        return 2
    finally:
        sub.close()
        ctx.term()
        if args.out:
            out.close()
    print(f"collect.py: received {received} messages", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

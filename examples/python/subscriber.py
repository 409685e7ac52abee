#!/usr/bin/env python3
"""Print messages from a Locus bus. The whole subscriber side of the protocol is:

    sub = zmq.Context().socket(zmq.SUB)
    sub.connect("ipc:///run/user/1000/locus/publish.sock")   # the hub's publish endpoint
    sub.setsockopt(zmq.SUBSCRIBE, b"obs.fix.")                # topic prefix; b"" = everything
    topic, body = sub.recv_multipart()                         # always exactly two frames
    envelope = json.loads(body)      # {"type","version","producer","seq","time","payload"}

Everything below is options and care: the default endpoint, timeouts, sequence gaps, Ctrl-C.

    subscriber.py [--endpoint E] [--json] [--count N] [--timeout S] [PREFIX...]

Output: one line per message, `time  topic  producer#seq  payload`; with --json, recording
lines `{"topic":…,"envelope":…}` that `locus replay` and tools/validate_messages.py read.
Sequence gaps are reported on stderr. See docs/protocol.md.
"""

import argparse
import json
import os
import signal
import sys
import time
from decimal import Decimal

import zmq


def runtime_dir():
    """Where the hub puts its ipc sockets: the same rule as the Locus runtime."""
    if os.environ.get("LOCUS_RUNTIME_DIR"):
        return os.environ["LOCUS_RUNTIME_DIR"].rstrip("/") or "/"
    if os.environ.get("XDG_RUNTIME_DIR"):
        return os.environ["XDG_RUNTIME_DIR"].rstrip("/") + "/locus"
    return f"/tmp/locus-{os.getuid()}"


def default_endpoint():
    # Set when Locus's exec plugin runs this program; otherwise find the hub's ipc socket.
    return os.environ.get("LOCUS_PUBLISH_ENDPOINT") or f"ipc://{runtime_dir()}/publish.sock"


class GapDetector:
    """Sequence numbers count per producer across all its topics, starting at 1.

    A jump means messages were not received: lost (a slow subscriber overflows the hub's
    queue) or, when subscribed to some prefixes only, published on a topic not subscribed to.
    A drop back to 1 means the producer restarted.
    """

    def __init__(self, filtered):
        self.last = {}
        self.filtered = filtered

    def check(self, producer, seq):
        last = self.last.get(producer)
        self.last[producer] = seq
        if last is None or seq == last + 1:
            return None
        if seq == 1:
            return f"{producer} restarted (seq {last} -> 1)"
        if seq > last + 1:
            why = "lost or on topics not subscribed to" if self.filtered else "lost"
            return f"gap: {producer} seq {last} -> {seq}, {seq - last - 1} message(s) {why}"
        return f"{producer} seq went back from {last} to {seq} (duplicate producer id?)"


def compact(value):
    """JSON text for a parsed value, numbers written as they arrived.

    json.dumps would print a float like 0.000000631 as 6.31e-07; parsing numbers as
    Decimal and formatting them positionally keeps the producer's digits.
    """
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(k)}:{compact(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(compact(v) for v in value) + "]"
    if isinstance(value, Decimal):
        return format(value, "f")
    return json.dumps(value, ensure_ascii=False)


def recording_line(topic, body):
    # The body is inserted unchanged, as `locus record` does, so the line carries exactly
    # the bytes that were on the bus.
    return '{"topic":%s,"envelope":%s}' % (json.dumps(topic), body)


class Stopped(Exception):
    pass


def stop(_signum, _frame):
    raise Stopped()


def main():
    # Explicit handlers: a shell starts background jobs with SIGINT ignored, and Python then
    # never raises KeyboardInterrupt.
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    parser = argparse.ArgumentParser(description="Print messages from a Locus bus.")
    parser.add_argument("prefixes", nargs="*", metavar="PREFIX",
                        help="topic prefixes to subscribe to, e.g. obs.fix. (default: everything)")
    parser.add_argument("--endpoint", default=default_endpoint(),
                        help="the hub's publish endpoint (default: %(default)s)")
    parser.add_argument("--json", action="store_true", help="print recording-format JSON lines")
    parser.add_argument("--count", type=int, metavar="N", help="exit after N messages")
    parser.add_argument("--timeout", type=float, metavar="S", help="exit after S seconds without a message")
    args = parser.parse_args()

    ctx = zmq.Context()
    sub = ctx.socket(zmq.SUB)
    sub.setsockopt(zmq.LINGER, 0)
    sub.connect(args.endpoint)
    for prefix in args.prefixes or [""]:
        sub.setsockopt(zmq.SUBSCRIBE, prefix.encode("utf-8"))

    # Python runs signal handlers only between blocking calls, so poll in short slices.
    gaps = GapDetector(filtered=bool(args.prefixes))
    received = 0
    last_message = time.monotonic()
    try:
        while args.count is None or received < args.count:
            if not sub.poll(200):
                if args.timeout is not None and time.monotonic() - last_message >= args.timeout:
                    break
                continue
            frames = sub.recv_multipart()
            last_message = time.monotonic()
            if len(frames) != 2:
                print(f"skipping a message with {len(frames)} frames (expected 2)", file=sys.stderr)
                continue
            received += 1
            topic = frames[0].decode("utf-8", "replace")
            try:
                body = frames[1].decode("utf-8")
                env = json.loads(body, parse_float=Decimal)
                note = gaps.check(env["producer"], env["seq"])
            except (ValueError, KeyError, TypeError) as e:
                print(f"{topic}: body is not a Locus envelope ({e})", file=sys.stderr)
                continue
            if note:
                print(note, file=sys.stderr)
            if args.json:
                print(recording_line(topic, body), flush=True)
            else:
                payload = compact(env.get("payload"))
                print(f"{env.get('time')}  {topic}  {env['producer']}#{env['seq']}  {payload}", flush=True)
    except Stopped:
        pass  # Ctrl-C or SIGTERM: asked to stop, not a failure
    except BrokenPipeError:
        # The reader went away (piped into head). Point stdout at /dev/null so that the
        # interpreter's final flush does not print a second traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    finally:
        sub.close()
        ctx.term()
    return 0


if __name__ == "__main__":
    sys.exit(main())

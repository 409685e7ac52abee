#!/usr/bin/env python3
"""Print messages from a Locus bus, with the `locus_client` library (clients/python):

    subscriber.py [--endpoint E] [--server-key K --key F] [--json] [--count N] [--timeout S] [PREFIX...]

Output: one line per message, `time  topic  producer#seq  payload`; with --json, recording
lines `{"topic":…,"envelope":…}` (the body exactly as received) that `locus replay` and
tools/validate_messages.py read. Breaks in a producer's sequence numbers go to stderr: in its
`seq`, or, subscribed to some prefixes only, in its `topic_seq` on each topic (docs/protocol.md
4.2), as `locus sub` reports them.

A tcp endpoint with CURVE (examples/secure/README.md) needs --server-key (the server's NAME.key
or its Z85 key) and --key (this client's NAME.key_secret from `locus keygen`), or
$LOCUS_SERVER_KEY and $LOCUS_CLIENT_KEY.

The same without the library, in plain pyzmq, is five lines (README.md, docs/protocol.md 1):
connect a SUB socket to the hub's publish endpoint, subscribe to a topic prefix, and each
message is two frames, a topic and a JSON envelope.
"""

import argparse
import json
import os
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients", "python"))

from locus_client import CurveKeyError, Subscriber, to_json  # noqa: E402  (pip install ./clients/python, or the line above)


class Stopped(Exception):
    pass


def stop(_signum, _frame):
    raise Stopped()


def report_gap(gap, message, filtered):
    # A gap with a topic is in that topic's topic_seq: a jump there is loss, also when
    # subscribed to some prefixes only. Only a jump in seq under a filter can be other topics.
    name, field = (gap.producer, "seq") if gap.topic is None else (f"{gap.producer} {gap.topic}", "topic_seq")
    if gap.restarted:
        note = f"{name} restarted ({field} {gap.after} -> 1)"
    elif gap.missed:
        why = "lost or on topics not subscribed to" if filtered and gap.topic is None else "lost"
        note = f"gap: {name} {field} {gap.after} -> {gap.seq}, {gap.missed} message(s) {why}"
    else:
        note = f"{name} {field} went back from {gap.after} to {gap.seq} (duplicate producer id?)"
    print(note, file=sys.stderr, flush=True)


def main():
    # Explicit handlers: a shell starts background jobs with SIGINT ignored, and Python then
    # never raises KeyboardInterrupt.
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    parser = argparse.ArgumentParser(description="Print messages from a Locus bus.")
    parser.add_argument("prefixes", nargs="*", metavar="PREFIX",
                        help="topic prefixes to subscribe to, e.g. obs.fix. (default: everything)")
    parser.add_argument("--endpoint", help="the hub's publish endpoint (default: $LOCUS_PUBLISH_ENDPOINT, "
                                           "else publish.sock in the runtime directory, as locus finds it)")
    parser.add_argument("--server-key", metavar="K", help="CURVE: the server's NAME.key, or its 40-character Z85 key "
                                                          "(default: $LOCUS_SERVER_KEY; tcp endpoints only)")
    parser.add_argument("--key", metavar="F", help="CURVE: this client's NAME.key_secret from locus keygen "
                                                   "(default: $LOCUS_CLIENT_KEY)")
    parser.add_argument("--json", action="store_true", help="print recording-format JSON lines")
    parser.add_argument("--count", type=int, metavar="N", help="exit after N messages")
    parser.add_argument("--timeout", type=float, metavar="S", help="exit after S seconds without a message")
    args = parser.parse_args()

    try:
        sub = Subscriber(args.prefixes or [""], endpoint=args.endpoint, server_key=args.server_key, key=args.key,
                         on_gap=lambda gap, message: report_gap(gap, message, sub.filtered))
    except CurveKeyError as e:
        parser.error(str(e))  # exit status 2
    last_message = time.monotonic()
    try:
        while args.count is None or sub.received < args.count:
            m = sub.receive(timeout=0.2)  # short slices: Python runs signal handlers between calls
            if m is None:
                if args.timeout is not None and time.monotonic() - last_message >= args.timeout:
                    break
                continue
            last_message = time.monotonic()
            if args.json:
                print('{"topic":%s,"envelope":%s}' % (json.dumps(m.topic), m.body), flush=True)
            else:
                print(f"{m.time}  {m.topic}  {m.producer}#{m.seq}  {to_json(m.payload)}", flush=True)
    except Stopped:
        pass  # Ctrl-C or SIGTERM: asked to stop, not a failure
    except BrokenPipeError:
        # The reader went away (piped into head). Point stdout at /dev/null so that the
        # interpreter's final flush does not print a second traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    finally:
        sub.close()
        if sub.malformed:
            print(f"skipped {sub.malformed} message(s) that were not Locus envelopes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

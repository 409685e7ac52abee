#!/usr/bin/env python3
"""Record the events of a Locus bus into a file, each exactly once even across `kill -9`, with
the hub's journal and `locus_client.catchup` (clients/python; docs/protocol.md 13):

    durable_subscriber.py --out EVENTS.jsonl --state STATE.json [--topic PREFIX ...] [--since TIME|all]
    durable_subscriber.py --stdout --state STATE.json [...]

Each event becomes one recording line, `{"topic":…,"envelope":…}` with the body exactly as it
was on the bus, appended to EVENTS.jsonl with a single write() on an O_APPEND descriptor.

Where it resumes is a checkpoint plus the output itself. STATE.json, replaced atomically (temp
file + rename) every --checkpoint-every events or second and at exit, holds `{"offset": bytes of
EVENTS.jsonl it covers, "after": {producer: last seq}, "since": start time}`. On start it
reads EVENTS.jsonl from `offset` to the end, cuts off a last line a kill left half-written,
and takes each complete line's producer and seq into `after`: so after a kill at any instant
it asks the journal for exactly what follows its last line. Without STATE.json it starts at
--since (a time, or `all` for everything the journal has), else at the moment it starts; lines
already in EVENTS.jsonl then count as done.

With --stdout it prints the lines instead: at-least-once after `kill -9` (what was printed
since the last checkpoint is printed again), exactly once after SIGTERM or Ctrl-C.

Exit status 0 after --count events, --timeout seconds without one, SIGTERM or Ctrl-C; 1 when
the catch-up fails (no daemon, journal off: the message says) or the output cannot be
written; 2 on bad usage or a state or output file it cannot use.
"""

import argparse
import fcntl
import json
import os
import signal
import sys
import time

import zmq

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients", "python"))

from locus_client import CatchupError, DurableSubscriber, event_time  # noqa: E402  (or pip install ./clients/python)


class Unusable(Exception):
    """A state or output file this program cannot work from (exit status 2)."""


def report_gap(gap, filtered):
    # With a topic, the break is in that topic's topic_seq (subscribed to some prefixes only):
    # not "on topics not subscribed to", which only a jump in seq can be.
    name, field = (gap.producer, "seq") if gap.topic is None else (f"{gap.producer} {gap.topic}", "topic_seq")
    if gap.restarted:
        note = f"{name} restarted ({field} {gap.after} -> 1)"
    elif gap.missed:
        if filtered and gap.topic is None:
            why = "not in the journal, lost, or on topics not subscribed to"
        else:
            why = "not in the journal, or lost"
        note = f"gap: {name} {field} {gap.after} -> {gap.seq}, {gap.missed} message(s) {why}"
    else:
        note = f"{name} {field} went back from {gap.after} to {gap.seq} (duplicate producer id?)"
    print(note, file=sys.stderr, flush=True)


def report_truncated(_header):
    print("the journal no longer has everything after the saved position (retention): events were lost",
          file=sys.stderr, flush=True)


def load_state(path):
    """The checkpoint as a dict, or None when there is none yet."""
    try:
        with open(path, encoding="utf-8") as f:
            state = json.load(f)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        raise Unusable(f"cannot read {path}: {e}") from None
    after = state.get("after") if isinstance(state, dict) else None
    if (not isinstance(after, dict) or not isinstance(state.get("offset"), int) or state["offset"] < 0
            or not all(isinstance(p, str) and isinstance(s, int) and s >= 0 for p, s in after.items())
            or not isinstance(state.get("since", ""), str)):
        raise Unusable(f"{path} is not a state file of this program (want offset, after, since)")
    return state


def save_state(path, offset, after, since):
    """Replaces `path` atomically: a kill leaves the old checkpoint or the new one, never half."""
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump({"offset": offset, "after": after, "since": since}, f, separators=(",", ":"))
    os.replace(tmp, path)


def recover(path, offset, after):
    """(offset, after) covering every complete line of `path`: reads from the checkpoint's
    `offset` on, takes each line's producer and seq, and truncates a torn last line."""
    size = os.path.getsize(path)
    if offset > size:  # the output was truncated or replaced: it is the truth, read it all
        print(f"{path} is shorter than the state says ({size} < {offset} bytes): reading it from the start",
              file=sys.stderr)
        offset, after = 0, {}
    after = dict(after)
    with open(path, "rb") as f:
        f.seek(offset)
        for line in f:
            if not line.endswith(b"\n"):
                break  # torn: a kill in the middle of its write
            try:
                envelope = json.loads(line)["envelope"]
                producer, seq = envelope["producer"], envelope["seq"]
            except (ValueError, KeyError, TypeError):
                raise Unusable(f"{path}: the line at byte {offset} is not an event line; "
                               "not touching the file") from None
            if not isinstance(producer, str) or not isinstance(seq, int):
                raise Unusable(f"{path}: the line at byte {offset} has no producer and seq")
            after[producer] = seq
            offset += len(line)
    if offset < size:
        print(f"cut off {size - offset} bytes of a line a crash left half-written in {path}", file=sys.stderr)
        os.truncate(path, offset)
    return offset, after


def main():
    stopping = []

    def stop(signum, _frame):
        # A flag, not an exception: an exception could land between the write of a line and
        # the bookkeeping of what was written, and the next checkpoint would then be wrong.
        stopping.append(signum)

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    # A parent that blocks these (some supervisors and test runners do) passes the mask on;
    # blocked, they would never reach the handler and SIGTERM would not stop us.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    parser = argparse.ArgumentParser(description="Record events from a Locus bus, exactly once across restarts.")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--out", metavar="EVENTS.jsonl", help="append recording lines to this file (exactly once)")
    where.add_argument("--stdout", action="store_true", help="print the lines (at least once after kill -9)")
    parser.add_argument("--state", required=True, metavar="STATE.json", help="checkpoint file (created if missing)")
    parser.add_argument("--topic", action="append", default=[], metavar="PREFIX",
                        help="topic prefix to record, repeatable (default: everything)")
    parser.add_argument("--since", metavar="TIME|all",
                        help="without a state file, start at this ISO 8601 time, or `all` for the whole journal "
                             "(default: now)")
    parser.add_argument("--endpoint", help="the hub's publish endpoint (default: as locus finds it)")
    parser.add_argument("--catchup-endpoint", help="the hub's catch-up endpoint (default: catchup.sock in the "
                                                   "runtime directory)")
    parser.add_argument("--limit", type=int, default=1000, metavar="N", help="events per catch-up page (1-10000)")
    parser.add_argument("--page-timeout", type=float, default=10.0, metavar="S", help="wait for a catch-up page")
    parser.add_argument("--checkpoint-every", type=int, default=1000, metavar="N",
                        help="write STATE.json after N events (and every second)")
    parser.add_argument("--count", type=int, metavar="N", help="exit after N events")
    parser.add_argument("--timeout", type=float, metavar="S", help="exit after S seconds without an event")
    args = parser.parse_args()
    if not 1 <= args.limit <= 10000:
        parser.error("--limit must be 1 to 10000")
    if args.since not in (None, "all"):
        try:
            args.since = event_time(args.since)
        except ValueError as e:
            parser.error(f"--since: {e}")

    fd = None
    try:
        state = load_state(args.state)
        if state is None:
            state = {"offset": 0, "after": {}, "since": args.since or event_time(None)}
        elif args.since:
            print(f"--since ignored: resuming from {args.state}", file=sys.stderr)
        offset, after, since = state["offset"], state["after"], state.get("since") or "all"
        if args.out:
            fd = os.open(args.out, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)  # location data: owner only
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise Unusable(f"another program is writing {args.out}") from None
            offset, after = recover(args.out, offset, after)
        save_state(args.state, offset, after, since)  # from now on a restart knows `since`
    except (Unusable, OSError) as e:
        print(f"durable_subscriber.py: {e}", file=sys.stderr)
        return 2

    try:
        sub = DurableSubscriber(args.topic or [""], after=after or None, since=since, endpoint=args.endpoint,
                                catchup_endpoint=args.catchup_endpoint, limit=args.limit, timeout=args.page_timeout,
                                on_gap=lambda gap, _message: report_gap(gap, sub.filtered),
                                on_truncated=report_truncated)
    except (ValueError, zmq.ZMQError) as e:  # a topic prefix or an endpoint that cannot be used
        print(f"durable_subscriber.py: {e}", file=sys.stderr)
        return 2
    status, written, unsaved = 0, 0, 0
    last_event = last_save = time.monotonic()
    consistent = True  # offset and sub.position describe the same lines
    try:
        while not stopping and (args.count is None or written < args.count):
            m = sub.receive(timeout=0.2)  # short slices, to see the stop flag
            now = time.monotonic()
            if m is not None:
                line = ('{"topic":%s,"envelope":%s}\n' % (json.dumps(m.topic), m.body)).encode()
                consistent = False  # sub.position has the event, the output not yet
                if fd is not None:
                    if os.write(fd, line) != len(line):
                        raise OSError(f"short write to {args.out} (disk full?)")
                    offset += len(line)
                else:
                    sys.stdout.buffer.write(line)
                    sys.stdout.flush()
                consistent = True
                written += 1
                unsaved += 1
                last_event = now
            elif args.timeout is not None and now - last_event >= args.timeout:
                break
            if unsaved and (unsaved >= args.checkpoint_every or now - last_save >= 1):
                save_state(args.state, offset, sub.position, since)
                unsaved, last_save = 0, now
    except CatchupError as e:
        print(f"durable_subscriber.py: {e}", file=sys.stderr)
        status = 1
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # see subscriber.py
    except OSError as e:
        print(f"durable_subscriber.py: {e}", file=sys.stderr)
        status = 1
    finally:
        sub.close()
        if consistent:  # else the checkpoint stays behind, and the next start reads the file's end again
            try:
                save_state(args.state, offset, sub.position, since)
            except OSError as e:
                print(f"durable_subscriber.py: cannot save {args.state}: {e}", file=sys.stderr)
                status = 1
        if sub.malformed:
            print(f"skipped {sub.malformed} message(s) that were not Locus envelopes", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Idle Server-Sent Event clients against the web gateway (issue 49, item 7).

    sse_flood.py --port P --pid PID --clients N --hold SECONDS [--path /events?history=1]
                 [--addresses 5] [--after 15]

Opens N connections to PATH on 127.0.0.1:P, from 127.0.0.2 .. 127.0.0.(1+ADDRESSES) in turn
(a per-address limit does not stop them), sends each request and never reads; holds them
SECONDS, closes them all, and waits --after seconds more. Meanwhile:
  - a thread samples VmRSS of PID every 0.25 s (before, peak, at the end of the hold, right
    after the close, --after seconds after it);
  - a process on 127.0.0.1 asks GET /state every 0.5 s (fresh connection) and counts answers
    by status;
  - a process on 127.0.0.1 opens GET /events (a normal client that reads) every 2 s and
    records how long its first event (`data:` line) takes.
Prints one JSON object.
"""

import argparse
import json
import multiprocessing
import resource
import socket
import statistics
import threading
import time


def rss_mb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return -1.0


def ask_state(port, stop, out):
    """GET /state every 0.5 s from 127.0.0.1; puts (status or error, seconds)."""
    while not stop.is_set():
        started = time.monotonic()
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
                s.sendall(b"GET /state HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                data = b""
                while True:
                    chunk = s.recv(65536)
                    if not chunk:
                        break
                    data += chunk
            out.put((data[9:12].decode(errors="replace") or "eof", time.monotonic() - started))
        except OSError as e:
            out.put((type(e).__name__, time.monotonic() - started))
        time.sleep(0.5)


def first_event(port, stop, out):
    """A normal client every 2 s: GET /events, the time until its first `data:` line."""
    while not stop.is_set():
        started = time.monotonic()
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
                s.sendall(b"GET /events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
                data = b""
                while b"\ndata: " not in data:
                    chunk = s.recv(65536)
                    if not chunk:
                        raise OSError("closed: " + repr(data[:60]))
                    data += chunk
            out.put((None, time.monotonic() - started))
        except OSError as e:
            out.put((str(e)[:80], time.monotonic() - started))
        time.sleep(2)


def drain(q):
    items = []
    while not q.empty():
        items.append(q.get())
    return items


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--pid", type=int, required=True)
    p.add_argument("--clients", type=int, default=500)
    p.add_argument("--hold", type=float, default=60)
    p.add_argument("--after", type=float, default=15)
    p.add_argument("--addresses", type=int, default=5)
    p.add_argument("--path", default="/events?history=1")
    args = p.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, args.clients + 256)), hard))

    stop = threading.Event()
    stop_probes = multiprocessing.Event()
    peak = [0.0]

    def sample_rss():
        while not stop.is_set():
            peak[0] = max(peak[0], rss_mb(args.pid))
            time.sleep(0.25)

    before = rss_mb(args.pid)
    # The probes run in processes of their own: a thread here would wait for the GIL while
    # this one opens hundreds of connections, and measure that wait, not the gateway.
    states, firsts = multiprocessing.Queue(), multiprocessing.Queue()
    probes = [multiprocessing.Process(target=ask_state, args=(args.port, stop_probes, states), daemon=True),
              multiprocessing.Process(target=first_event, args=(args.port, stop_probes, firsts), daemon=True)]
    for pr in probes:
        pr.start()
    sampler = threading.Thread(target=sample_rss, daemon=True)
    sampler.start()
    request = f"GET {args.path} HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n".encode()
    clients, failed = [], 0
    opened_at = time.monotonic()
    for i in range(args.clients):
        try:
            s = socket.socket()
            s.bind((f"127.0.0.{2 + i % args.addresses}", 0))
            s.settimeout(10)
            s.connect(("127.0.0.1", args.port))
            s.sendall(request)
            clients.append(s)
        except OSError:
            failed += 1
    open_seconds = time.monotonic() - opened_at
    time.sleep(args.hold)
    held_rss = rss_mb(args.pid)
    # Which connections did the server close (refused, cut off, timed out)? Read without
    # blocking what is there: an EOF or a reset says closed. Reading frees nothing of the
    # server's that a close would not.
    closed_by_server, refused = 0, 0
    for s in clients:
        first = True
        try:
            s.setblocking(False)
            while True:
                chunk = s.recv(1 << 20)
                if first and chunk.startswith(b"HTTP/1.1 503"):
                    refused += 1
                first = False
                if not chunk:
                    closed_by_server += 1
                    break
        except BlockingIOError:
            pass
        except OSError:
            closed_by_server += 1
    closed_at = time.monotonic()
    for s in clients:
        s.close()
    time.sleep(1)
    right_after = rss_mb(args.pid)
    time.sleep(max(0, args.after - 1))
    stop.set()
    stop_probes.set()
    sampler.join(timeout=5)
    for pr in probes:
        pr.join(timeout=35)
    state_answers = {}
    state_slowest = 0.0
    for status, seconds in drain(states):
        state_answers[status] = state_answers.get(status, 0) + 1
        state_slowest = max(state_slowest, seconds)
    waits = [s for e, s in drain(firsts) if e is None]
    print(json.dumps({
        "clients": args.clients, "connect_failed": failed, "open_seconds": round(open_seconds, 2),
        "closed_by_server": closed_by_server, "refused_503": refused,
        "rss_before_mb": round(before, 1), "rss_peak_mb": round(peak[0], 1),
        "rss_end_of_hold_mb": round(held_rss, 1), "rss_1s_after_close_mb": round(right_after, 1),
        "rss_after_mb": round(rss_mb(args.pid), 1), "after_seconds": args.after,
        "state_answers": state_answers, "state_slowest_ms": round(state_slowest * 1000, 1),
        "first_event_ms_median": round(statistics.median(waits) * 1000, 1) if waits else None,
        "first_event_ms_max": round(max(waits) * 1000, 1) if waits else None,
        "first_event_samples": len(waits),
    }))


if __name__ == "__main__":
    main()

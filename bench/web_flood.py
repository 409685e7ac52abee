#!/usr/bin/env python3
"""The web gateway under a flood of Server-Sent Event clients that never read (issue 29, item 6).

    web_flood.py --port P --pid PID --clients N --hold SECONDS [--path /events?history=1] [--after 10]

Opens N connections to PATH on 127.0.0.1:P, sends each request and never reads an answer;
holds them SECONDS, closes them all, and waits --after seconds more. Meanwhile a process asks
GET /state every 0.2 s (a fresh connection each time, 30 s timeout) and records how long each
answer took, and a thread samples VmRSS of PID every 0.25 s. Prints one JSON object:
rss_before_mb, rss_peak_mb, rss_after_mb (--after seconds after the close), the /state
latencies (max, median, count, failures) and how many of the N connections the server had
closed by the end of the hold (it may cut off clients that do not read).
"""

import argparse
import json
import resource
import socket
import statistics
import multiprocessing
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


def ask_state(port, stop, answers):
    """GET /state every 0.2 s on a fresh connection; puts (started, seconds, error) per answer."""
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
            if not data.startswith(b"HTTP/1.1 200"):
                raise OSError("answer: " + repr(data[:40]))
            answers.put((started, time.monotonic() - started, None))
        except OSError as e:
            answers.put((started, None, str(e)))
        time.sleep(0.2)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--pid", type=int, required=True)
    p.add_argument("--clients", type=int, default=500)
    p.add_argument("--hold", type=float, default=60)
    p.add_argument("--after", type=float, default=10)
    p.add_argument("--path", default="/events?history=1")
    args = p.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, args.clients + 256)), hard))

    stop = threading.Event()
    stop_probe = multiprocessing.Event()
    peak = [0.0]

    def sample_rss():
        while not stop.is_set():
            peak[0] = max(peak[0], rss_mb(args.pid))
            time.sleep(0.25)

    before = rss_mb(args.pid)
    # /state is asked from a process of its own: a thread here would wait for the GIL while
    # this one opens hundreds of connections, and measure that wait, not the gateway.
    answers = multiprocessing.Queue()
    prober = multiprocessing.Process(target=ask_state, args=(args.port, stop_probe, answers), daemon=True)
    prober.start()
    threads = [threading.Thread(target=sample_rss, daemon=True)]
    for t in threads:
        t.start()
    request = f"GET {args.path} HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n".encode()
    clients, refused = [], 0
    opened_at = time.monotonic()
    for _ in range(args.clients):
        try:
            s = socket.create_connection(("127.0.0.1", args.port), timeout=10)
            s.sendall(request)
            clients.append(s)
        except OSError:
            refused += 1
    open_seconds = time.monotonic() - opened_at
    time.sleep(args.hold)
    # Which connections has the server closed? (A closed one reads as EOF or an error once
    # its queued bytes are drained; peek without blocking to see an EOF or a reset.)
    closed_by_server = 0
    for s in clients:
        try:
            s.setblocking(False)
            while True:
                chunk = s.recv(1 << 20)
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
    time.sleep(args.after)
    stop.set()
    stop_probe.set()
    for t in threads:
        t.join(timeout=35)
    latencies, failures, slow_while_opening, slow_while_held = [], [], 0, 0
    prober.join(timeout=35)
    while not answers.empty():
        started, latency, error = answers.get()
        if started >= closed_at:
            continue
        if error:
            failures.append(error)
        else:
            latencies.append(latency)
            if latency > 0.1:
                if started < opened_at + open_seconds:
                    slow_while_opening += 1
                else:
                    slow_while_held += 1
    during = latencies
    print(json.dumps({
        "clients": args.clients, "connect_failed": refused, "open_seconds": round(open_seconds, 2),
        "closed_by_server": closed_by_server,
        "rss_before_mb": round(before, 1), "rss_peak_mb": round(peak[0], 1),
        "rss_after_mb": round(rss_mb(args.pid), 1),
        "state_max_ms": round(max(during) * 1000, 1) if during else None,
        "state_median_ms": round(statistics.median(during) * 1000, 1) if during else None,
        "state_answers": len(during), "state_failures": len(failures),
        "state_over_100ms_while_opening": slow_while_opening, "state_over_100ms_while_held": slow_while_held,
        "state_failure_sample": failures[:3],
    }))


if __name__ == "__main__":
    main()

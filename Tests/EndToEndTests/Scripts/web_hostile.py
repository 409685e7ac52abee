#!/usr/bin/env python3
"""Hostile clients of the `web` sink's gateway (issue 29, items 6 and 7), for end-to-end tests.

    web_hostile.py big-head  --port P [--bytes N]
    web_hostile.py slow-head --port P [--interval S] [--max-wait S]
    web_hostile.py idle      --port P [--max-wait S]
    web_hostile.py half-close --port P [--path /events] [--max-wait S]
    web_hostile.py hold      --port P --clients K [--path /events] [--rcvbuf B] [--hold S]
                             [--state-every S]

big-head sends one request whose head is N bytes (a header line of that size) while reading
what comes back, and prints {"status", "closed", "sent", "seconds"}: the answer's status (0
for none) and whether the server closed the connection within --max-wait (20 s).
slow-head sends a request head one byte every S seconds and prints {"status", "closed",
"sent", "seconds"} once the server answers and closes (or --max-wait passes).
idle makes one keep-alive GET /state, reads its answer, then sends nothing and prints
{"status", "closed", "seconds"}: seconds from the answer until the server closed.
half-close opens --path, reads the answer's head, closes its sending side (FIN) and prints
{"status", "closed", "seconds"}: whether the server then closed within --max-wait, and when.
hold opens K connections to --path (default /events?history=1), each with a receive buffer of
B bytes (default: the system's), sends each request and never reads; meanwhile it asks GET
/state every --state-every seconds (default 0.2; 0: never) on a fresh connection. After --hold seconds
it prints {"opened", "answers" (first status line per connection, of those that answered
before the server closed them; read after the hold), "closed" (connections the server had
closed), "state_max_ms", "state_answers", "state_failures"} and closes everything.
"""

import argparse
import json
import resource
import selectors
import socket
import struct
import sys
import threading
import time


def status_of(data):
    if data.startswith(b"HTTP/1.1 "):
        try:
            return int(data[9:12])
        except ValueError:
            return 0
    return 0


def read_until_closed(s, deadline, data=b""):
    """Reads until EOF or a reset (returns (data, True)) or the deadline (returns (data, False))."""
    while time.monotonic() < deadline:
        s.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            break
        except OSError:
            return data, True
        if not chunk:
            return data, True
        data += chunk
    return data, False


def big_head(args):
    s = socket.create_connection(("127.0.0.1", args.port))
    s.setblocking(False)
    payload = b"GET /state HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * args.bytes + b"\r\n\r\n"
    started = time.monotonic()
    deadline = started + args.max_wait
    sent, data, closed = 0, b"", False
    selector = selectors.DefaultSelector()
    selector.register(s, selectors.EVENT_READ | selectors.EVENT_WRITE)
    while time.monotonic() < deadline and not closed:
        for key, events in selector.select(timeout=0.2):
            if events & selectors.EVENT_READ:
                try:
                    chunk = s.recv(65536)
                except BlockingIOError:
                    chunk = None
                except OSError:
                    closed = True
                    break
                if chunk == b"":
                    closed = True
                    break
                if chunk:
                    data += chunk
            if events & selectors.EVENT_WRITE and sent < len(payload):
                try:
                    sent += s.send(payload[sent:sent + 65536])
                except BlockingIOError:
                    pass
                except OSError:
                    # The server stopped reading and reset: what it answered may still be here.
                    selector.modify(s, selectors.EVENT_READ)
            if sent >= len(payload):
                selector.modify(s, selectors.EVENT_READ)
    print(json.dumps({"status": status_of(data), "closed": closed, "sent": sent,
                      "seconds": round(time.monotonic() - started, 2), "answer": data[:200].decode("latin-1")}))
    return 0


def slow_head(args):
    s = socket.create_connection(("127.0.0.1", args.port))
    head = b"GET /state HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"s" * 1000 + b"\r\n\r\n"
    started = time.monotonic()
    deadline = started + args.max_wait
    sent, data, closed = 0, b"", False
    s.settimeout(args.interval)
    while time.monotonic() < deadline and sent < len(head):
        try:
            s.send(head[sent:sent + 1])
            sent += 1
        except OSError:
            break
        try:
            chunk = s.recv(65536)
            if not chunk:
                closed = True
                break
            data += chunk
        except socket.timeout:
            pass
        except OSError:
            closed = True
            break
    if not closed:
        data, closed = read_until_closed(s, deadline, data)
    print(json.dumps({"status": status_of(data), "closed": closed, "sent": sent,
                      "seconds": round(time.monotonic() - started, 2)}))
    return 0


def idle(args):
    s = socket.create_connection(("127.0.0.1", args.port))
    s.sendall(b"GET /state HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    s.settimeout(10)
    data = b""
    while b"\r\n\r\n" not in data:
        data += s.recv(65536)
    head, _, rest = data.partition(b"\r\n\r\n")
    length = int([line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")][0])
    while len(rest) < length:
        rest += s.recv(65536)
    answered = time.monotonic()
    _, closed = read_until_closed(s, answered + args.max_wait)
    print(json.dumps({"status": status_of(head), "closed": closed, "seconds": round(time.monotonic() - answered, 2)}))
    return 0


def half_close(args):
    s = socket.create_connection(("127.0.0.1", args.port))
    s.sendall(f"GET {args.path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    s.settimeout(10)
    data = b""
    while b"\r\n\r\n" not in data:
        data += s.recv(65536)
    s.shutdown(socket.SHUT_WR)
    started = time.monotonic()
    _, closed = read_until_closed(s, started + args.max_wait)
    print(json.dumps({"status": status_of(data), "closed": closed, "seconds": round(time.monotonic() - started, 2)}))
    return 0


def hold(args):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, args.clients + 100)), hard))
    stop = threading.Event()
    latencies, failures = [], []

    def ask_state():
        while not stop.is_set():
            started = time.monotonic()
            try:
                with socket.create_connection(("127.0.0.1", args.port), timeout=20) as c:
                    c.sendall(b"GET /state HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                    data, _ = read_until_closed(c, started + 20)
                if status_of(data) != 200:
                    raise OSError("answer " + repr(data[:30]))
                latencies.append(time.monotonic() - started)
            except OSError as e:
                failures.append(str(e))
            stop.wait(args.state_every)

    asker = threading.Thread(target=ask_state, daemon=True)
    if args.state_every > 0:
        asker.start()
    request = f"GET {args.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n".encode()
    sockets = []
    for _ in range(args.clients):
        s = socket.socket()
        if args.rcvbuf:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, args.rcvbuf)
        s.connect(("127.0.0.1", args.port))
        s.sendall(request)
        sockets.append(s)
    time.sleep(args.hold)
    stop.set()
    if args.state_every > 0:
        asker.join(timeout=25)
    answers, closed = {}, 0
    for s in sockets:
        s.setblocking(False)
        first, ended = b"", False
        try:
            while True:
                chunk = s.recv(1 << 20)
                if not chunk:
                    ended = True
                    break
                if len(first) < 16:
                    first += chunk[:16]
        except BlockingIOError:
            pass
        except OSError:
            ended = True
        code = str(status_of(first))
        answers[code] = answers.get(code, 0) + 1
        closed += 1 if ended else 0
        # Gone at once, as a client that disappears (a reset, not an orderly close).
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        s.close()
    print(json.dumps({"opened": len(sockets), "answers": answers, "closed": closed,
                      "state_max_ms": round(max(latencies) * 1000, 1) if latencies else None,
                      "state_answers": len(latencies), "state_failures": len(failures),
                      "failure_sample": failures[:3]}))
    return 0


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["big-head", "slow-head", "idle", "half-close", "hold"])
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--bytes", type=int, default=8 << 20)
    p.add_argument("--interval", type=float, default=0.25)
    p.add_argument("--max-wait", type=float, default=20)
    p.add_argument("--clients", type=int, default=1)
    p.add_argument("--path", default="/events?history=1")
    p.add_argument("--rcvbuf", type=int, default=0)
    p.add_argument("--hold", type=float, default=5)
    p.add_argument("--state-every", type=float, default=0.2)
    args = p.parse_args(argv)
    return {"big-head": big_head, "slow-head": slow_head, "idle": idle, "half-close": half_close, "hold": hold}[args.mode](args)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Clients of the `web` sink's gateway, for end-to-end tests: what a browser or a script does.

    web_clients.py sse   --port P --out PATH [--topics a.,b.] [--last-event-id N] [--history]
                         [--token T] [--ready-file PATH] [--count N] [--max-wait S]
    web_clients.py ws    --port P --out PATH [--topics a.,b.] [--token T] [--ready-file PATH]
                         [--count N] [--max-wait S]
    web_clients.py many  --port P --clients K [--topics a.,b.] --count N [--max-wait S]
    web_clients.py stall --port P [--topics a.,b.] --hold S [--ready-file PATH]
    web_clients.py get   --port P --path /state [--header 'Name: value'] [--last-event-id N]

With --schemas DIR, sse checks every event against DIR/protocol/web.event.schema.json (and
that its SSE id is its "id") and get checks /state against web.state.schema.json; a failure
is printed and makes the exit status 1. sse reads Server-Sent Events with urllib (as EventSource does: Last-Event-ID header to resume);
ws subscribes over a WebSocket (Debian's python3-websockets). Each event is written as one
line {"topic", "id", "type", "producer", "seq"} (flushed), and `event: gap` frames as
{"gap": {...}}; the ready file appears once the stream is open (sse: the first bytes came;
ws: the subscription was answered). They stop after --count events or --max-wait seconds.
get prints {"status": code, "type": content type, "body": text} of one request (the
first 64 KiB of a stream). many opens K SSE streams at once (one thread with selectors) and prints a JSON summary of how
many events each got. stall opens one stream and never reads it (a slow or dead client).
"""

import argparse
import json
import os
import resource
import selectors
import socket
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path


def record(event):
    env = event.get("envelope", {})
    return {"topic": event.get("topic"), "id": event.get("id"), "type": env.get("type"),
            "producer": env.get("producer"), "seq": env.get("seq")}


def query(args, extra=None):
    parts = []
    if args.topics:
        parts.append("topics=" + args.topics)
    if getattr(args, "token", None):
        parts.append("token=" + args.token)
    parts += extra or []
    return ("?" + "&".join(parts)) if parts else ""


def parse_frames(buffer):
    """Splits complete SSE frames off `buffer`; returns (frames, rest). A frame is a dict of field -> value."""
    frames = []
    while b"\n\n" in buffer:
        raw, buffer = buffer.split(b"\n\n", 1)
        frame = {}
        for line in raw.split(b"\n"):
            if not line or line.startswith(b":"):
                continue
            name, _, value = line.partition(b":")
            value = value[1:] if value.startswith(b" ") else value
            frame[name.decode()] = frame.get(name.decode(), "") + value.decode()
        frames.append(frame)
    return frames, buffer


def validator(args, name):
    """A jsonschema validator for schemas/protocol/<name>.schema.json when --schemas is given."""
    if not args.schemas:
        return None
    from jsonschema import Draft202012Validator
    return Draft202012Validator(json.load(open(os.path.join(args.schemas, "protocol", name + ".schema.json"))))


def sse(args):
    check = validator(args, "web.event")
    invalid = 0
    extra = ["history=1"] if args.history else []
    request = urllib.request.Request(f"http://127.0.0.1:{args.port}/events" + query(args, extra))
    if args.last_event_id is not None:
        request.add_header("Last-Event-ID", str(args.last_event_id))
    deadline = time.time() + args.max_wait
    got = 0
    with urllib.request.urlopen(request, timeout=args.max_wait) as response, open(args.out, "w") as out:
        if args.ready_file:
            args.ready_file.write_text("ready\n")
        buffer = b""
        while got < args.count and time.time() < deadline:
            chunk = response.read1(65536)
            if not chunk:
                break
            frames, buffer = parse_frames(buffer + chunk)
            for f in frames:
                if f.get("event") == "gap":
                    out.write(json.dumps({"gap": json.loads(f["data"])}) + "\n")
                elif "data" in f:
                    event = json.loads(f["data"])
                    if check is not None:
                        problems = [e.message for e in check.iter_errors(event)]
                        if problems or ("id" in event and f.get("id") != str(event["id"])):
                            invalid += 1
                            print(f"invalid event {f['data'][:200]}: {problems}", file=sys.stderr)
                    out.write(json.dumps(record(event)) + "\n")
                    got += 1
            out.flush()
    return 1 if invalid else 0


def ws(args):
    import asyncio
    import websockets

    async def run():
        url = f"ws://127.0.0.1:{args.port}/ws" + query(argparse.Namespace(topics=None, token=args.token))
        got = 0
        async with websockets.connect(url, max_size=None) as socket_:
            topics = [t for t in (args.topics or "").split(",") if t]
            await socket_.send(json.dumps({"subscribe": topics or [""]}))
            answer = json.loads(await socket_.recv())
            if "subscribed" not in answer:
                print(f"subscription refused: {answer}", file=sys.stderr)
                return 1
            if args.ready_file:
                args.ready_file.write_text("ready\n")
            with open(args.out, "w") as out:
                while got < args.count:
                    try:
                        message = await asyncio.wait_for(socket_.recv(), timeout=args.max_wait)
                    except asyncio.TimeoutError:
                        break
                    out.write(json.dumps(record(json.loads(message))) + "\n")
                    out.flush()
                    got += 1
        return 0

    return asyncio.run(run())


def many(args):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, args.clients + 100)), hard))
    selector = selectors.DefaultSelector()
    path = "/events" + query(args)
    started = time.time()
    states = []
    for k in range(args.clients):
        s = socket.create_connection(("127.0.0.1", args.port))
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n".encode())
        s.setblocking(False)
        state = {"buffer": b"", "events": 0, "status": None}
        states.append(state)
        selector.register(s, selectors.EVENT_READ, state)
    connected = time.time() - started
    deadline = time.time() + args.max_wait
    while time.time() < deadline and any(st["events"] < args.count for st in states):
        for key, _ in selector.select(timeout=1):
            try:
                chunk = key.fileobj.recv(65536)
            except BlockingIOError:
                continue
            st = key.data
            if not chunk:
                selector.unregister(key.fileobj)
                continue
            st["buffer"] += chunk
            if st["status"] is None and b"\r\n\r\n" in st["buffer"]:
                head, st["buffer"] = st["buffer"].split(b"\r\n\r\n", 1)
                st["status"] = int(head.split(b" ")[1])
            if st["status"] is not None:
                # Chunked transfer: frames may be split by chunk headers; count data lines instead.
                st["events"] += st["buffer"].count(b"\ndata: ") + (1 if st["buffer"].startswith(b"data: ") else 0)
                st["buffer"] = st["buffer"][-8:]
    counts = [st["events"] for st in states]
    print(json.dumps({"clients": args.clients, "ok_status": sum(1 for st in states if st["status"] == 200),
                      "complete": sum(1 for c in counts if c >= args.count), "min": min(counts), "max": max(counts),
                      "connect_seconds": round(connected, 3), "seconds": round(time.time() - started, 3)}))
    return 0


def stall(args):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", args.port))
    s.sendall(f"GET /events{query(args)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    if args.ready_file:
        args.ready_file.write_text("ready\n")
    time.sleep(args.hold)
    s.close()
    return 0


def get(args):
    request = urllib.request.Request(f"http://127.0.0.1:{args.port}{args.path}")
    for h in args.header or []:
        name, _, value = h.partition(":")
        request.add_header(name.strip(), value.strip())
    if args.last_event_id is not None:
        request.add_header("Last-Event-ID", str(args.last_event_id))
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            status, ctype = r.status, r.headers.get("Content-Type", "")
            body = r.read1(65536) if ctype.startswith("text/event-stream") else r.read()
    except urllib.error.HTTPError as e:
        status, ctype, body = e.code, e.headers.get("Content-Type", ""), e.read()
    text = body.decode("utf-8", "replace")
    check = validator(args, "web.state") if args.path.startswith("/state") else None
    problems = [e.message for e in check.iter_errors(json.loads(text))] if check is not None and status == 200 else []
    print(json.dumps({"status": status, "type": ctype, "body": text, "problems": problems}))
    return 1 if problems else 0


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["sse", "ws", "many", "stall", "get"])
    p.add_argument("--path", default="/")
    p.add_argument("--header", action="append")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--topics", default="")
    p.add_argument("--token")
    p.add_argument("--out", type=Path)
    p.add_argument("--ready-file", type=Path)
    p.add_argument("--last-event-id", type=int)
    p.add_argument("--history", action="store_true")
    p.add_argument("--count", type=int, default=10**9)
    p.add_argument("--clients", type=int, default=1000)
    p.add_argument("--hold", type=float, default=30)
    p.add_argument("--max-wait", type=float, default=60)
    p.add_argument("--schemas", help="the repository's schemas/ directory: check events (sse) and /state (get) against it")
    args = p.parse_args(argv)
    return {"sse": sse, "ws": ws, "many": many, "stall": stall, "get": get}[args.mode](args)


if __name__ == "__main__":
    sys.exit(main())

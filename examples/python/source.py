#!/usr/bin/env python3
"""An external Locus source: publishes simulated obs.fix messages to the hub.

Run it as a Locus source of `type: exec` (configuration keys: Plugins/Exec/README.md); the
plugin starts it with LOCUS_INGEST_ENDPOINT and LOCUS_PLUGIN_ID set and stops it with SIGTERM.
Or run it by hand, naming the endpoint and id yourself:

    LOCUS_INGEST_ENDPOINT=ipc://$XDG_RUNTIME_DIR/locus/ingest.sock LOCUS_PLUGIN_ID=sim0 \\
        examples/python/source.py --count 10

The fixes walk a circle around 0°N 0°E (in the Gulf of Guinea) at 1.4 m/s, marked quality
"simulated"; its radius is --radius, else $EXAMPLE_RADIUS_M, else 50 m. Logs go to stderr; stdout is not used. SIGTERM or Ctrl-C stops it
promptly with exit status 0.
"""

import argparse
import json
import math
import os
import re
import signal
import sys
import time

import zmq

SPEED_MS = 1.4
METRES_PER_DEGREE = 111_320.0  # at the equator; plenty for a 50 m circle
SEGMENT = re.compile(r"[a-z0-9_-]{1,64}")


def log(message):
    print(f"source.py: {message}", file=sys.stderr, flush=True)


def fixed(value, digits):
    """A number the way Locus writes it: fixed point, at most `digits` decimals, no trailing
    zeros, never an exponent (json.dumps would write 3e-05 for a longitude this close to 0)."""
    text = f"{value:.{digits}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def utc_iso_ms(seconds):
    """Event time as Locus writes it: 2024-05-17T08:00:00.100Z."""
    ms = int(seconds * 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + f".{ms % 1000:03d}Z"


def fix_body(producer, source, seq, now, t, radius):
    """One envelope, keys in Locus's order. `t` is seconds since start: position on the circle."""
    angle = SPEED_MS * t / radius  # radians, anticlockwise from east
    north, east = radius * math.sin(angle), radius * math.cos(angle)
    # Moving anticlockwise, the velocity points along (-sin, cos) in (east, north).
    course = fixed(math.degrees(math.atan2(-math.sin(angle), math.cos(angle))) % 360, 2)
    if course == "360":  # 359.996 rounds up; the wire range is 0 <= course < 360
        course = "0"
    payload = (f'{{"source":{json.dumps(source)},"mode":"3d",'
               f'"lat":{fixed(north / METRES_PER_DEGREE, 9)},"lon":{fixed(east / METRES_PER_DEGREE, 9)},'
               f'"alt_msl":0,"speed":{fixed(SPEED_MS, 3)},"course":{course},'
               f'"quality":"simulated","h_accuracy":5,"v_accuracy":8}}')
    return (f'{{"type":"obs.fix","version":1,"producer":{json.dumps(producer)},"seq":{seq},'
            f'"time":"{utc_iso_ms(now)}","payload":{payload}}}')


class Stop:
    """Set by SIGTERM/SIGINT. Every wait below is a poll or sleep of at most 100 ms that checks
    it, so the exec plugin's SIGTERM ends the process promptly. (A flag rather than a
    threading.Event: setting an Event from a signal handler can deadlock on its lock.)"""
    requested = False


def sleep_until(deadline):
    while not Stop.requested and (left := deadline - time.monotonic()) > 0:
        time.sleep(min(left, 0.1))


def wait_for_hub(pub):
    """Returns True once the hub's subscription has arrived, False if stopped first.

    The hub subscribes to everything on its ingest socket; on an XPUB socket that
    subscription arrives as the one-byte frame b"\\x01". Until it does, the socket has nowhere
    to send and would silently drop what we publish.
    """
    started = next_log = time.monotonic()
    while not Stop.requested:
        if pub.poll(100):
            if pub.recv() == b"\x01":
                return True
            continue  # a narrower subscription forwarded from a subscriber: keep waiting
        if time.monotonic() >= next_log + 5:
            next_log = time.monotonic()
            log(f"still waiting for the hub after {next_log - started:.0f} s")
    return False


def main():
    parser = argparse.ArgumentParser(description="Publish simulated obs.fix messages to a Locus hub.")
    parser.add_argument("--rate", type=float, default=1.0, help="fixes per second (default 1)")
    parser.add_argument("--count", type=int, help="stop after N fixes (default: run until stopped)")
    parser.add_argument("--radius", type=float, help="radius of the circle in metres (default: $EXAMPLE_RADIUS_M, else 50)")
    args = parser.parse_args()
    if args.radius is None:
        try:
            args.radius = float(os.environ.get("EXAMPLE_RADIUS_M") or 50)
        except ValueError:
            parser.error(f"EXAMPLE_RADIUS_M={os.environ['EXAMPLE_RADIUS_M']!r} is not a number")
    if not args.rate > 0:
        parser.error("--rate must be > 0")
    if not 1 <= args.radius <= 10_000:
        parser.error("--radius must be between 1 and 10000 metres")

    endpoint = os.environ.get("LOCUS_INGEST_ENDPOINT")
    plugin_id = os.environ.get("LOCUS_PLUGIN_ID")
    if not endpoint or not plugin_id:
        log("LOCUS_INGEST_ENDPOINT and LOCUS_PLUGIN_ID must be set (the exec plugin sets them)")
        return 2
    if not SEGMENT.fullmatch(plugin_id):
        log(f"LOCUS_PLUGIN_ID {plugin_id!r} is not a topic segment ([a-z0-9_-], 1-64 characters)")
        return 2

    def request_stop(_signum, _frame):
        Stop.requested = True

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, request_stop)

    ctx = zmq.Context()
    pub = ctx.socket(zmq.XPUB)
    # Give queued messages half a second to reach the hub at exit, but never hang on it.
    pub.setsockopt(zmq.LINGER, 500)
    pub.connect(endpoint)
    topic = f"obs.fix.{plugin_id}".encode()
    sent = 0
    try:
        log(f"connecting to {endpoint}")
        if not wait_for_hub(pub):
            return 0
        log(f"publishing on {topic.decode()} at {args.rate:g} Hz")
        start = time.time()
        next_at = time.monotonic()
        while not Stop.requested and (args.count is None or sent < args.count):
            now = time.time()
            sent += 1
            body = fix_body(plugin_id, plugin_id, sent, now, now - start, args.radius)
            pub.send_multipart([topic, body.encode()])
            while pub.poll(0):
                pub.recv()  # later subscription frames; read them so they do not pile up
            next_at += 1 / args.rate
            sleep_until(next_at)
    finally:
        log(f"stopping after {sent} fixes")
        pub.close()
        ctx.term()
    return 0


if __name__ == "__main__":
    sys.exit(main())

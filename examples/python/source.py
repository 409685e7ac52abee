#!/usr/bin/env python3
"""An external Locus source: publishes simulated obs.fix messages to the hub, with the
`locus_client` library (clients/python).

Run it as a Locus source of `type: exec` (Plugins/Exec/README.md): Locus starts it with
LOCUS_INGEST_ENDPOINT and LOCUS_PLUGIN_ID set and stops it with SIGTERM. Or by hand, next to a
running `locus run` of the same user (it finds the hub's ipc socket as locus does):

    examples/python/source.py --id sim0 --count 10

The fixes walk a circle around 0°N 0°E (in the Gulf of Guinea) at 1.4 m/s, marked quality
"simulated"; its radius is --radius, else $EXAMPLE_RADIUS_M, else 50 m. Logs go to stderr
(never coordinates); stdout is not used. SIGTERM or Ctrl-C stops it within about 100 ms with
exit status 0.
"""

import argparse
import math
import os
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients", "python"))

from locus_client import EnvelopeError, Publisher  # noqa: E402  (pip install ./clients/python, or the line above)

SPEED_MS = 1.4
METRES_PER_DEGREE = 111_320.0  # at the equator; plenty for a 50 m circle


def log(message):
    print(f"source.py: {message}", file=sys.stderr, flush=True)


class Stop:
    """Set by SIGTERM/SIGINT. Every wait below is at most 100 ms and checks it, so the exec
    plugin's SIGTERM ends the process promptly (a flag: a signal handler should not do more)."""
    requested = False


def main():
    parser = argparse.ArgumentParser(description="Publish simulated obs.fix messages to a Locus hub.")
    parser.add_argument("--id", default=os.environ.get("LOCUS_PLUGIN_ID") or "sim0",
                        help="producer id and topic segment (default: $LOCUS_PLUGIN_ID, else sim0)")
    parser.add_argument("--endpoint", help="the hub's ingest endpoint (default: $LOCUS_INGEST_ENDPOINT, else the runtime directory's)")
    parser.add_argument("--rate", type=float, default=1.0, help="fixes per second (default 1)")
    parser.add_argument("--count", type=int, help="stop after N fixes (default: run until stopped)")
    parser.add_argument("--radius", type=float, default=os.environ.get("EXAMPLE_RADIUS_M") or "50",
                        help="radius of the circle in metres (default: $EXAMPLE_RADIUS_M, else 50)")
    args = parser.parse_args()
    if not args.rate > 0 or not 1 <= args.radius <= 10_000:
        parser.error("--rate must be > 0 and --radius between 1 and 10000 metres")

    def request_stop(_signum, _frame):
        Stop.requested = True
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, request_stop)

    try:
        pub = Publisher(args.id, endpoint=args.endpoint, linger=0.5, wait=False)
    except EnvelopeError as e:
        log(str(e))
        return 2
    sent = 0
    with pub:
        log(f"connecting to {pub.endpoint}")
        waited = 0
        # Until the hub's subscription arrives, whatever is sent is silently dropped (protocol 2.3).
        while not Stop.requested and not pub.wait_for_hub(0.1):
            waited += 1
            if waited % 50 == 0:
                log(f"still waiting for the hub after {waited // 10} s")
        if Stop.requested:
            return 0
        log(f"publishing on obs.fix.{args.id} at {args.rate:g} Hz")
        start = next_at = time.monotonic()
        while not Stop.requested and (args.count is None or sent < args.count):
            angle = SPEED_MS * (time.monotonic() - start) / args.radius  # radians, anticlockwise from east
            pub.fix(lat=args.radius * math.sin(angle) / METRES_PER_DEGREE,
                    lon=args.radius * math.cos(angle) / METRES_PER_DEGREE,
                    alt_msl=0, speed=SPEED_MS,
                    course=math.degrees(math.atan2(-math.sin(angle), math.cos(angle))),  # wrapped into [0, 360)
                    quality="simulated", h_accuracy=5, v_accuracy=8)  # time: now; seq 1, 2, 3, ...
            sent += 1
            next_at += 1 / args.rate
            while not Stop.requested and (left := next_at - time.monotonic()) > 0:
                time.sleep(min(left, 0.1))
        log(f"stopping after {sent} fixes")
    return 0


if __name__ == "__main__":
    sys.exit(main())

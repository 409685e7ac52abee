#!/usr/bin/env python3
"""A phone (or any GPS outside Locus) as a fix source, and the location it gets back, with the
`locus_client` library (clients/python): reads `lat,lon[,accuracy]` lines on stdin, publishes
each as `obs.fix.<producer>`, and prints the `location.update`s the standard service makes of
them, with any sequence gaps. Run `locus run` with `hub.external_topics: ["obs.fix.phone"]`
and a `standard` service, then:

    printf '45.7712,14.3564,8\\n45.7723,14.3570,6\\n' | examples/python/phone_bridge.py --producer phone

subscriber.py and source.py use the same library; docs/protocol.md (sections 1 and 2.3) shows
the protocol in plain pyzmq.
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients", "python"))

from locus_client import EnvelopeError, Publisher, PublisherError, Subscriber  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--producer", default=os.environ.get("LOCUS_PLUGIN_ID", "phone"), help="producer id and fix source (default phone)")
    parser.add_argument("--ingest", help="the hub's ingest endpoint (default: $LOCUS_INGEST_ENDPOINT or the runtime directory's)")
    parser.add_argument("--publish", help="the hub's publish endpoint (default: $LOCUS_PUBLISH_ENDPOINT or the runtime directory's)")
    parser.add_argument("--wait", type=float, default=2.0, help="seconds to wait for updates after the last line (default 2)")
    args = parser.parse_args()

    sub = Subscriber(["location.update."], endpoint=args.publish)
    try:
        pub = Publisher(args.producer, endpoint=args.ingest, timeout=10)
    except (PublisherError, EnvelopeError) as e:
        print(f"phone_bridge.py: {e}", file=sys.stderr)
        return 1
    time.sleep(0.3)  # let the subscription reach the hub (protocol 2.2: no history)
    with sub, pub:
        for number, line in enumerate(sys.stdin, 1):
            fields = line.strip().split(",")
            try:
                lat, lon = float(fields[0]), float(fields[1])
                accuracy = float(fields[2]) if len(fields) > 2 and fields[2] else None
                pub.fix(lat=lat, lon=lon, h_accuracy=accuracy)
            except (ValueError, IndexError, EnvelopeError) as e:
                print(f"phone_bridge.py: line {number}: {e}", file=sys.stderr)
        while (m := sub.receive(timeout=args.wait)) is not None:
            if m.gap and not m.gap.restarted:
                print(f"phone_bridge.py: {m.gap.missed} update(s) of {m.producer} missed", file=sys.stderr)
            print(f"{m.time}  {m.topic}  {m.payload['lat']},{m.payload['lon']}  ±{m.payload.get('h_accuracy', '?')} m")
    return 0


if __name__ == "__main__":
    sys.exit(main())

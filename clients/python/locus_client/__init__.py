"""locus_client: subscribe to and publish on a Locus bus from Python (pyzmq only).

    from locus_client import Subscriber, Publisher

    with Subscriber(["location.update."]) as sub:      # default: the hub's ipc publish socket
        for message in sub:
            print(message.time, message.topic, message.payload["lat"])
            if message.gap:                              # messages of this producer were missed
                print("missed", message.gap.missed)

    with Publisher("phone") as pub:                      # producer id; waits for the hub
        pub.fix(lat=45.77, lon=14.36, h_accuracy=5)      # obs.fix.phone, seq 1, 2, 3, ...

    with DurableSubscriber(["region."], after=saved) as sub:  # the journal since, then live
        for message in sub:
            saved = sub.position                         # producer -> last seq: persist it

Over a tcp endpoint with CURVE, pass `server_key=` (the server's NAME.key) and `key=` (this
client's NAME.key_secret) to any of them, or set $LOCUS_SERVER_KEY and $LOCUS_CLIENT_KEY.

The wire format is docs/protocol.md of the Locus repository (catch-up from the journal: section
13); `validate` checks a message against Locus's JSON Schemas (needs jsonschema). Runtime
dependency: pyzmq only.
"""

from .catchup import CatchupError, CatchupTimeout, DurableSubscriber, snapshot
from .curve import CurveKeyError, apply_curve, curve_options
from .endpoints import catchup_endpoint, default_endpoints, runtime_dir
from .envelope import Envelope, EnvelopeError, encode_envelope, event_time, is_valid_topic, parse_envelope, to_json
from .gaps import Gap, GapTracker
from .publisher import Publisher, PublisherError
from .schemas import SchemaError, problems, validate
from .subscriber import Message, Subscriber

__all__ = [
    "CatchupError", "CatchupTimeout", "CurveKeyError", "DurableSubscriber", "Envelope", "EnvelopeError", "Gap",
    "GapTracker", "Message", "Publisher", "PublisherError", "SchemaError", "Subscriber", "apply_curve",
    "catchup_endpoint", "curve_options", "default_endpoints", "encode_envelope", "event_time", "is_valid_topic",
    "parse_envelope", "problems", "runtime_dir", "snapshot", "to_json", "validate",
]

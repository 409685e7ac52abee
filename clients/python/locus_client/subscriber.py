"""Receiving from a Locus hub's publish socket (docs/protocol.md 2.2)."""

from dataclasses import dataclass
from typing import Optional

import zmq

from .curve import apply_curve, curve_options, uses_curve
from .endpoints import default_endpoints
from .envelope import Envelope, EnvelopeError, parse_envelope
from .gaps import Gap, GapTracker


@dataclass(frozen=True)
class Message:
    """One message from the bus: its topic, its envelope's fields (`type`, `version`,
    `producer`, `seq`, `time`, `payload`, `via`), the body exactly as it was on the wire (`body`, a
    str: what a recording line carries), and `gap`: the break in this producer's sequence (or,
    with `gap.topic`, in its numbering of this topic) just before this message, or None (see
    GapTracker). `topic_seq` is the envelope's, None from a producer that does not write it."""
    topic: str
    envelope: Envelope
    body: str = ""
    gap: Optional[Gap] = None

    @property
    def type(self): return self.envelope.type
    @property
    def version(self): return self.envelope.version
    @property
    def producer(self): return self.envelope.producer
    @property
    def seq(self): return self.envelope.seq
    @property
    def time(self): return self.envelope.time
    @property
    def payload(self): return self.envelope.payload
    @property
    def via(self): return self.envelope.via
    @property
    def topic_seq(self): return self.envelope.topic_seq


class Subscriber:
    """A SUB socket on the hub's publish endpoint, subscribed to topic prefixes ("" = all).

    Iterating yields `Message`s for ever; `receive(timeout)` returns one, or None after
    `timeout` seconds. Messages that are not two frames with a readable envelope are counted in
    `malformed` and skipped (the hub forwards none, so this means something else is wrong).

    Gaps: sequence numbers are followed (`gaps`, a GapTracker): `message.gap` is set on the
    first message after a break, `gaps.missed` counts missed messages per producer,
    `gaps.restarts` restarts, and `on_gap(gap, message)`, if given, is called for each break.
    Subscribed to everything, each producer's `seq` is compared. When `prefixes` are some
    prefixes only (`filtered` is then True), `seq` spans topics not subscribed to, so messages
    carrying `topic_seq` are compared per producer and topic instead (`gap.topic` is set, and a
    gap is loss); those without it by `seq`, where a "missed" message may only have been on a
    topic you did not subscribe to. Checking starts at the first message of each producer (of
    each topic, per topic), unless `last_seen` (a saved `gaps.last_seen`) says where a
    producer's `seq` was.

    Live only: a missed message is not fetched again here. `DurableSubscriber` (catchup.py)
    asks the hub's journal for them (protocol 13.2), starting from `gaps.last_seen`.

    `high_water_mark` is this socket's receive queue (ZeroMQ's default 1000). The hub keeps
    its own queue per subscriber (hub.high_water_mark) and drops beyond it, which shows here as
    gaps.

    CURVE (a tcp endpoint with `curve:` in the hub's config): `server_key` is the server's
    NAME.key or its Z85 key, `key` this client's NAME.key_secret; they default to
    $LOCUS_SERVER_KEY and $LOCUS_CLIENT_KEY and are used for tcp endpoints only (see curve.py).
    A key the server refuses shows as silence: ZeroMQ reports no error, and does not try again.
    """

    def __init__(self, prefixes=("",), endpoint=None, context=None, high_water_mark=None, on_gap=None, last_seen=None,
                 server_key=None, key=None):
        if isinstance(prefixes, (str, bytes)):
            prefixes = [prefixes]
        prefixes = list(prefixes) or [""]
        self.endpoint = endpoint or default_endpoints()["publish"]
        # Keys are read before the socket exists, so that a bad one leaves no socket open.
        self.curve = curve_options(server_key, key) if uses_curve(self.endpoint) else None
        self._context = context or zmq.Context.instance()
        self.socket = self._context.socket(zmq.SUB)
        self.socket.setsockopt(zmq.LINGER, 0)
        apply_curve(self.socket, self.curve)
        if high_water_mark is not None:
            self.socket.setsockopt(zmq.RCVHWM, high_water_mark)
        for prefix in prefixes:
            self.socket.setsockopt(zmq.SUBSCRIBE, prefix.encode() if isinstance(prefix, str) else prefix)
        self.socket.connect(self.endpoint)
        # Some prefixes only: the empty prefix, among others too, subscribes to everything.
        self.filtered = "" not in prefixes and b"" not in prefixes
        self.gaps = GapTracker(last_seen, per_topic=self.filtered)
        self.on_gap = on_gap
        self.malformed = 0
        self.received = 0

    def receive(self, timeout=None):
        """The next message, or None after `timeout` seconds (None waits for ever)."""
        while True:
            if timeout is not None and not self.socket.poll(int(timeout * 1000)):
                return None
            frames = self.socket.recv_multipart()
            if len(frames) != 2:
                self.malformed += 1
                continue
            try:
                topic = frames[0].decode()
                body = frames[1].decode()
                envelope = parse_envelope(body)
            except (UnicodeDecodeError, EnvelopeError):
                self.malformed += 1
                continue
            self.received += 1
            gap = self.gaps.check(envelope.producer, envelope.seq, topic, envelope.topic_seq)
            message = Message(topic, envelope, body, gap)
            if message.gap is not None and self.on_gap is not None:
                self.on_gap(message.gap, message)
            return message

    def __iter__(self):
        while True:
            message = self.receive()
            if message is not None:
                yield message

    def close(self):
        self.socket.close(0)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

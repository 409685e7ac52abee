"""Receiving from a Locus hub's publish socket (docs/protocol.md 2.2)."""

from dataclasses import dataclass

import zmq

from .endpoints import default_endpoints
from .envelope import Envelope, EnvelopeError, parse_envelope
from .gaps import Gap, GapTracker


@dataclass(frozen=True)
class Message:
    topic: str
    envelope: Envelope
    #: The gap before this message in its producer's sequence, or None (see GapTracker).
    gap: "Gap | None" = None

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


class Subscriber:
    """A SUB socket on the hub's publish endpoint, subscribed to topic prefixes ("" = all).

    Iterating yields `Message`s until `close()`; `receive(timeout)` returns one or None.
    Sequence gaps are tracked per producer (`gaps.missed`, `message.gap`). Messages that are
    not two frames with a JSON envelope are counted in `malformed` and skipped.

    `high_water_mark` is the socket's receive queue (ZeroMQ's default 1000); the hub keeps its
    own queue per subscriber (hub.high_water_mark) and drops beyond it, which shows as gaps.
    There is no catch-up yet: a later Locus with a journal will let a subscriber ask for what
    it missed, starting from `gaps.last_seen`.
    """

    def __init__(self, prefixes=("",), endpoint=None, context=None, high_water_mark=None):
        self.endpoint = endpoint or default_endpoints()["publish"]
        self._context = context or zmq.Context.instance()
        self.socket = self._context.socket(zmq.SUB)
        self.socket.setsockopt(zmq.LINGER, 0)
        if high_water_mark is not None:
            self.socket.setsockopt(zmq.RCVHWM, high_water_mark)
        for prefix in prefixes:
            self.socket.setsockopt(zmq.SUBSCRIBE, prefix.encode() if isinstance(prefix, str) else prefix)
        self.socket.connect(self.endpoint)
        self.gaps = GapTracker()
        self.malformed = 0
        self.filtered = list(prefixes) != [""]

    def receive(self, timeout=None):
        """The next message, or None after `timeout` seconds (None waits forever)."""
        while True:
            if timeout is not None and not self.socket.poll(int(timeout * 1000)):
                return None
            frames = self.socket.recv_multipart()
            if len(frames) != 2:
                self.malformed += 1
                continue
            try:
                topic = frames[0].decode()
                envelope = parse_envelope(frames[1])
            except (UnicodeDecodeError, EnvelopeError):
                self.malformed += 1
                continue
            return Message(topic, envelope, self.gaps.check(envelope.producer, envelope.seq))

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

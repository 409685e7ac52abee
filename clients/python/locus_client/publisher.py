"""Publishing observations to a Locus hub's ingest socket (docs/protocol.md 2.3)."""

import math
import os
import time as _time

import zmq

from .curve import apply_curve, curve_options, uses_curve
from .endpoints import default_endpoints
from .envelope import EnvelopeError, encode_envelope, is_valid_segment, is_valid_topic, round_half_away

#: obs.fix payload fields in the order Locus writes them (protocol 5.1), with the number of
#: fraction digits Locus rounds each to (None: not a rounded number).
FIX_FIELDS = {
    "source": None, "mode": None, "lat": 9, "lon": 9, "alt_msl": 3, "alt_hae": 3, "speed": 3,
    "course": 2, "heading": 2, "quality": None, "satellites_used": None, "hdop": 2, "vdop": 2,
    "pdop": 2, "h_accuracy": 3, "v_accuracy": 3, "speed_accuracy": 3, "course_accuracy": 2,
}
_BEARINGS = ("course", "heading")  # wrapped into [0, 360) after rounding, as Locus does
#: Most topics a Publisher numbers (topic_seq, protocol 4.2) before it forgets every counter
#: and starts each topic at 1 again, as Locus does: memory stays bounded for a producer that
#: names topics after what it hears, and subscribers see a restart of those topics, not loss.
TOPIC_SEQ_LIMIT = 131072


class PublisherError(RuntimeError):
    """No hub answered on the ingest endpoint."""


class Publisher:
    """An XPUB socket on the hub's ingest endpoint that publishes with correct envelopes.

    `producer` is the id subscribers see (a topic segment; under the exec plugin use
    $LOCUS_PLUGIN_ID, the default). `publish` waits while the hub is behind (ZMQ_XPUB_NODROP)
    rather than dropping messages. Sequence numbers start at 1 and go up by one per message
    across all topics, as 4.2 requires; a new Publisher starts at 1 again, which subscribers
    see as a restart. `seq` is the last number used.

    Every message also carries `topic_seq`, numbered per topic from 1 (4.2): a subscriber to
    some prefixes only compares it to tell loss from messages on topics it did not subscribe
    to. `topic_seqs` maps each topic to the last number used on it. Past TOPIC_SEQ_LIMIT (131072)
    topics every counter is forgotten and each topic starts at 1 again.

    The constructor waits up to `timeout` seconds for the hub's subscription (raising
    PublisherError if none comes): before it arrives ZeroMQ silently drops what is sent (2.3).
    With `wait=False` it returns at once; call `wait_for_hub()` yourself (in short slices, say,
    so that a signal handler's flag is seen).

    CURVE: `server_key` and `key` as for Subscriber (default $LOCUS_SERVER_KEY and
    $LOCUS_CLIENT_KEY, tcp endpoints only). A key the server refuses shows as no hub answering.
    """

    def __init__(self, producer=None, endpoint=None, context=None, timeout=10.0, linger=1.0, wait=True,
                 server_key=None, key=None):
        self.producer = producer or os.environ.get("LOCUS_PLUGIN_ID")
        if not is_valid_segment(self.producer or ""):
            raise EnvelopeError(f"producer {self.producer!r} is not a topic segment (1-64 of a-z 0-9 _ -); "
                                "pass one, or set LOCUS_PLUGIN_ID")
        self.endpoint = endpoint or default_endpoints()["ingest"]
        self.curve = curve_options(server_key, key) if uses_curve(self.endpoint) else None
        self._context = context or zmq.Context.instance()
        self.socket = self._context.socket(zmq.XPUB)
        self.socket.setsockopt(zmq.LINGER, int(linger * 1000))
        # The hub queues little per publisher (2.3): past our own queue, `send` waits instead
        # of dropping what the hub cannot take yet.
        self.socket.setsockopt(zmq.XPUB_NODROP, 1)
        apply_curve(self.socket, self.curve)
        self.socket.connect(self.endpoint)
        self.seq = 0
        self.topic_seqs = {}
        self.hub_seen = False
        if wait and not self.wait_for_hub(timeout):
            self.socket.close(0)
            hint = (" (CURVE: is this client's NAME.key in the server's authorized_keys, and the server key its own?)"
                    if self.curve else "")
            raise PublisherError(f"no Locus hub answered on {self.endpoint} within {timeout:g} s{hint}")

    def wait_for_hub(self, timeout=None):
        """True once the hub's subscription (the frame b"\\x01") has arrived, False if it has
        not within `timeout` seconds (None: wait for ever). Other frames are skipped, which
        keeps this working behind a plain ZeroMQ proxy too."""
        deadline = None if timeout is None else _time.monotonic() + timeout
        while not self.hub_seen:
            left = None if deadline is None else max(0, deadline - _time.monotonic())
            if not self.socket.poll(None if left is None else int(left * 1000)):
                return False
            if self.socket.recv() == b"\x01":
                self.hub_seen = True
        return True

    def _drain(self):
        # The hub re-sends its subscription when a connection is re-established (2.3); read
        # such frames so that they do not pile up.
        while self.socket.poll(0):
            self.socket.recv()

    def publish(self, topic, type_, payload, time=None, version=1):
        """Sends one message and returns its sequence number. `time` is the event time: None
        (now), seconds since the epoch, a datetime or an RFC 3339 string. Raises EnvelopeError,
        sending nothing and using no sequence number (nor topic_seq), for an invalid topic or a
        payload Locus would refuse (NaN, infinity, nesting deeper than 64)."""
        if not is_valid_topic(topic):
            raise EnvelopeError(f"topic {topic!r} is not valid: lower-case segments of a-z 0-9 _ - joined by dots, "
                                "at most 255 bytes (protocol 3.2)")
        topic_seq = self.topic_seqs.get(topic, 0) + 1
        body = encode_envelope(type_, self.producer, self.seq + 1, time, payload, version, topic_seq=topic_seq)
        self._drain()
        self.socket.send_multipart([topic.encode(), body.encode()])
        self.seq += 1
        # Numbers are taken only once the message is sent, so a refused one uses none.
        if topic not in self.topic_seqs and len(self.topic_seqs) >= TOPIC_SEQ_LIMIT:
            self.topic_seqs.clear()
        self.topic_seqs[topic] = topic_seq
        return self.seq

    def fix(self, lat, lon, time=None, source=None, mode=None, **fields):
        """Publishes an `obs.fix` (protocol 5.1) on `obs.fix.<source>` (source: the producer id).

        `mode` defaults to "3d" with `alt_msl`/`alt_hae`, else "2d". Other fields by their wire
        names (alt_msl, speed, course, quality, h_accuracy, ...); None means unknown and is left
        out. Numbers are rounded to the digits Locus writes (lat/lon 9, accuracies 3, ...) and
        course/heading wrapped into [0, 360). Unknown field names, a position off the globe or a
        value that is not finite raise EnvelopeError before anything is sent.
        """
        source = source or self.producer
        if not is_valid_segment(source):
            raise EnvelopeError(f"source {source!r} is not a topic segment")
        unknown = sorted(set(fields) - set(FIX_FIELDS))
        if unknown:
            raise EnvelopeError(f"obs.fix has no field(s) {', '.join(unknown)} (protocol 5.1); use publish() "
                                "for a payload of your own")
        for name, value in (("lat", lat), ("lon", lon)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise EnvelopeError(f"{name} {value!r} is not a finite number")
        if not (-90 <= lat <= 90 and -180 <= lon <= 180):
            raise EnvelopeError(f"lat {lat} / lon {lon} are off the globe (-90..90, -180..180)")
        if mode is None:
            mode = "3d" if fields.get("alt_msl") is not None or fields.get("alt_hae") is not None else "2d"
        given = dict(fields, source=source, mode=mode, lat=lat, lon=lon)
        payload = {}
        for name, digits in FIX_FIELDS.items():
            value = given.get(name)
            if value is None:
                continue
            if digits is not None:
                value = round_half_away(value, digits)
                if name in _BEARINGS:
                    value %= 360  # Decimal: the sign of the dividend, so -10 -> -10
                    if value < 0:
                        value += 360
            payload[name] = value
        return self.publish(f"obs.fix.{source}", "obs.fix", payload, time)

    def close(self):
        self.socket.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

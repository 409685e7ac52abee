"""Publishing observations to a Locus hub's ingest socket (docs/protocol.md 2.3)."""

import zmq

from .endpoints import default_endpoints
from .envelope import EnvelopeError, encode_envelope, is_valid_segment, is_valid_topic


class PublisherError(RuntimeError):
    """The hub did not answer, or a message was refused before sending."""


class Publisher:
    """An XPUB socket on the hub's ingest endpoint that publishes with correct envelopes.

    `producer` is the id subscribers see (a topic segment; under the exec plugin use
    $LOCUS_PLUGIN_ID, the default). Sequence numbers start at 1 and go up by one per message
    across all topics, as 4.2 requires; a new Publisher starts at 1 again (subscribers see a
    restart). The constructor waits up to `timeout` seconds for the hub's subscription:
    before it arrives ZeroMQ would silently drop what is sent (2.3).
    """

    def __init__(self, producer=None, endpoint=None, context=None, timeout=10.0, linger=1.0):
        import os
        self.producer = producer or os.environ.get("LOCUS_PLUGIN_ID")
        if not is_valid_segment(self.producer or ""):
            raise PublisherError(f"producer {self.producer!r} is not a topic segment (1-64 of a-z 0-9 _ -)")
        self.endpoint = endpoint or default_endpoints()["ingest"]
        self._context = context or zmq.Context.instance()
        self.socket = self._context.socket(zmq.XPUB)
        self.socket.setsockopt(zmq.LINGER, int(linger * 1000))
        self.socket.connect(self.endpoint)
        self.seq = 0
        self._wait_for_hub(timeout)

    def _wait_for_hub(self, timeout):
        import time
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not self.socket.poll(int(left * 1000)):
                self.socket.close(0)
                raise PublisherError(f"no Locus hub answered on {self.endpoint} within {timeout:g} s")
            if self.socket.recv() == b"\x01":
                return

    def _drain(self):
        # The hub re-sends its subscription when a connection is re-established (2.3).
        while self.socket.poll(0):
            self.socket.recv()

    def publish(self, topic, type_, payload, time=None, version=1):
        """Sends one message; returns its sequence number. Raises EnvelopeError (and sends
        nothing, using no sequence number) for an invalid topic or payload."""
        if not is_valid_topic(topic):
            raise EnvelopeError(f"topic {topic!r} is not valid: lower-case segments of a-z 0-9 _ - joined by dots")
        body = encode_envelope(type_, self.producer, self.seq + 1, time, payload, version)
        self._drain()
        self.socket.send_multipart([topic.encode(), body.encode()])
        self.seq += 1
        return self.seq

    def fix(self, lat, lon, time=None, source=None, mode=None, **fields):
        """Publishes an `obs.fix` on `obs.fix.<source>` (source: the producer id). `mode` is
        "3d" with `alt_msl`/`alt_hae`, else "2d"; other fields as in 5.1 (h_accuracy, speed, …)."""
        source = source or self.producer
        if mode is None:
            mode = "3d" if ("alt_msl" in fields or "alt_hae" in fields) else "2d"
        if not (-90 <= lat <= 90 and -180 <= lon <= 180):
            raise EnvelopeError(f"lat {lat} / lon {lon} are off the globe")
        payload = {"source": source, "mode": mode, "lat": lat, "lon": lon, **fields}
        return self.publish(f"obs.fix.{source}", "obs.fix", payload, time)

    def close(self):
        self.socket.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

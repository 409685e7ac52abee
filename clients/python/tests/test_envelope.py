"""The client's envelope, numbers, times and gap tracking, without a hub."""

import json
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from locus_client import (EnvelopeError, GapTracker, encode_envelope, event_time, is_valid_topic,  # noqa: E402
                          parse_envelope)
from locus_client.endpoints import default_endpoints, runtime_dir  # noqa: E402


class EnvelopeTests(unittest.TestCase):
    def test_keys_in_locus_order_compact_fixed_point(self):
        body = encode_envelope("obs.fix", "gps0", 7, "2024-05-17T08:00:00.1Z",
                               {"source": "gps0", "mode": "2d", "lat": 3e-05, "lon": -0.0, "speed": 1.5e-7, "alt_msl": None})
        self.assertEqual(body, '{"type":"obs.fix","version":1,"producer":"gps0","seq":7,"time":"2024-05-17T08:00:00.100Z",'
                               '"payload":{"source":"gps0","mode":"2d","lat":0.00003,"lon":0,"speed":0.00000015}}')
        self.assertEqual(list(json.loads(body)), ["type", "version", "producer", "seq", "time", "payload"])

    def test_what_locus_refuses_is_refused_before_sending(self):
        for payload in ({"lat": math.nan}, {"x": [1, math.inf]}, {"x": {"y": -math.inf}}):
            with self.assertRaises(EnvelopeError):
                encode_envelope("obs.fix", "gps0", 1, None, payload)
        for producer in ("GPS0", "a.b", "", "x" * 65):
            with self.assertRaises(EnvelopeError):
                encode_envelope("obs.fix", producer, 1, None, {})
        for seq in (0, -1, 1.0, True):
            with self.assertRaises(EnvelopeError):
                encode_envelope("obs.fix", "gps0", seq, None, {})

    def test_topics(self):
        self.assertTrue(is_valid_topic("obs.fix.gps0"))
        for bad in ("obs..fix", "Obs.fix", "obs.fix.", "", "a" * 256, "obs fix"):
            self.assertFalse(is_valid_topic(bad), bad)

    def test_event_time_forms(self):
        self.assertEqual(event_time(1_700_000_000.999), "2023-11-14T22:13:20.999Z")
        self.assertEqual(event_time("2024-05-17T10:00:00.123456+02:00"), "2024-05-17T08:00:00.123Z")
        self.assertEqual(event_time(0), "1970-01-01T00:00:00.000Z")
        with self.assertRaises(EnvelopeError):
            event_time("yesterday")

    def test_parse_ignores_unknown_keys_and_refuses_broken_envelopes(self):
        e = parse_envelope(b'{"type":"clock.tick","version":1,"producer":"clock","seq":3,"time":"2024-05-17T08:00:00.000Z",'
                           b'"payload":{},"extra":1}')
        self.assertEqual((e.type, e.producer, e.seq), ("clock.tick", "clock", 3))
        self.assertEqual(e.datetime.isoformat(), "2024-05-17T08:00:00+00:00")
        for bad in (b"[]", b"{", b'{"type":"x"}', b'{"type":"x","version":1,"producer":"p","seq":"1","time":"t","payload":{}}'):
            with self.assertRaises(EnvelopeError):
                parse_envelope(bad)


class GapTrackerTests(unittest.TestCase):
    def test_gaps_restarts_and_counts_per_producer(self):
        g = GapTracker()
        self.assertIsNone(g.check("a", 1))
        self.assertIsNone(g.check("a", 2))
        gap = g.check("a", 6)
        self.assertEqual((gap.after, gap.seq, gap.missed, gap.restarted), (2, 6, 3, False))
        self.assertIsNone(g.check("b", 40))  # first seen: nothing known before it
        self.assertTrue(g.check("a", 1).restarted)
        self.assertEqual(g.missed, {"a": 3})
        self.assertEqual(g.restarts, {"a": 1})
        self.assertEqual(g.last_seen, {"a": 1, "b": 40})


class EndpointTests(unittest.TestCase):
    def test_runtime_directory_rule(self):
        self.assertEqual(runtime_dir({"LOCUS_RUNTIME_DIR": "/r/", "XDG_RUNTIME_DIR": "/x"}), "/r")
        self.assertEqual(runtime_dir({"LOCUS_RUNTIME_DIR": "", "XDG_RUNTIME_DIR": "/x"}), "/x/locus")
        self.assertEqual(default_endpoints({"XDG_RUNTIME_DIR": "/x", "LOCUS_INGEST_ENDPOINT": "tcp://h:1"}),
                         {"ingest": "tcp://h:1", "publish": "ipc:///x/locus/publish.sock", "control": "ipc:///x/locus/control.sock"})


if __name__ == "__main__":
    unittest.main()

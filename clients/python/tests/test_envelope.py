"""The client's envelope, numbers, times and gap tracking, without a hub."""

import datetime
import json
import math
import os
import sys
import unittest
from decimal import Decimal

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from locus_client import (EnvelopeError, GapTracker, encode_envelope, event_time, is_valid_topic,  # noqa: E402
                          parse_envelope, to_json)
from locus_client.envelope import round_half_away  # noqa: E402
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

    def test_nesting_past_64_levels_is_refused(self):
        def nested(levels):  # `levels` containers inside the payload
            value = 1
            for _ in range(levels):
                value = [value]
            return value
        # envelope = level 1, payload = level 2: the payload may hold 62 more levels.
        encode_envelope("x.y", "p", 1, 0, {"a": nested(62)})
        with self.assertRaises(EnvelopeError):
            encode_envelope("x.y", "p", 1, 0, {"a": nested(63)})

    def test_rounding_half_away_from_zero_and_fixed_point(self):
        self.assertEqual(round_half_away(1.2345, 3), Decimal("1.235"))  # repr digits, not binary 1.23449999…
        self.assertEqual(round_half_away(-1.2345, 3), Decimal("-1.235"))
        self.assertEqual(round_half_away(45.1234567894999, 9), Decimal("45.123456789"))
        self.assertEqual(round_half_away(7, 3), 7)
        self.assertEqual(round_half_away(1e300, 3).to_integral_value(), Decimal("1e300"))
        with self.assertRaises(EnvelopeError):
            round_half_away(math.nan, 2)
        self.assertEqual(to_json({"a": Decimal("1.500"), "b": 6.31e-07, "c": -0.0, "d": None, "e": [1, "é"]}),
                         '{"a":1.5,"b":0.000000631,"c":0,"e":[1,"é"]}')

    def test_topics(self):
        self.assertTrue(is_valid_topic("obs.fix.gps0"))
        for bad in ("obs..fix", "Obs.fix", "obs.fix.", "", "a" * 256, "obs fix"):
            self.assertFalse(is_valid_topic(bad), bad)

    def test_event_time_forms(self):
        self.assertEqual(event_time(1_700_000_000.999), "2023-11-14T22:13:20.999Z")
        self.assertEqual(event_time("2024-05-17T10:00:00.123456+02:00"), "2024-05-17T08:00:00.123Z")
        self.assertEqual(event_time(0), "1970-01-01T00:00:00.000Z")
        self.assertEqual(event_time(datetime.datetime(2024, 5, 17, 8, 0, 0, 123999)), "2024-05-17T08:00:00.123Z")
        self.assertEqual(event_time(-0.001), "1969-12-31T23:59:59.999Z")
        self.assertEqual(event_time(datetime.datetime(999, 1, 2)), "0999-01-02T00:00:00.000Z")
        for bad in ("yesterday", math.inf, 1e12, "2024-05-17 08:00:00Z", "2024-02-30T08:00:00Z", True):
            with self.assertRaises(EnvelopeError, msg=repr(bad)):
                event_time(bad)

    def test_parse_ignores_unknown_keys_and_refuses_broken_envelopes(self):
        e = parse_envelope(b'{"type":"clock.tick","version":1,"producer":"clock","seq":3,"time":"2024-05-17T08:00:00.000Z",'
                           b'"payload":{},"extra":1}')
        self.assertEqual((e.type, e.producer, e.seq), ("clock.tick", "clock", 3))
        self.assertEqual(e.datetime.isoformat(), "2024-05-17T08:00:00+00:00")
        self.assertIsNone(e.via)
        v = parse_envelope(b'{"type":"clock.tick","version":1,"producer":"clock","seq":3,"time":"2024-05-17T08:00:00.000Z",'
                           b'"payload":{},"via":"van-12"}')
        self.assertEqual(v.via, "van-12")
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
        self.assertEqual(g.missed_total, 3)

    def test_a_saved_position_shows_what_was_missed_while_away(self):
        g = GapTracker({"a": 10})
        gap = g.check("a", 15)
        self.assertEqual((gap.after, gap.seq, gap.missed), (10, 15, 4))
        back = g.check("a", 12)  # backwards but not 1: reported, nothing counted as missed
        self.assertEqual((back.missed, back.restarted), (0, False))
        self.assertEqual(g.missed, {"a": 4})


class EndpointTests(unittest.TestCase):
    def test_runtime_directory_rule(self):
        self.assertEqual(runtime_dir({"LOCUS_RUNTIME_DIR": "/r/", "XDG_RUNTIME_DIR": "/x"}), "/r")
        self.assertEqual(runtime_dir({"LOCUS_RUNTIME_DIR": "", "XDG_RUNTIME_DIR": "/x"}), "/x/locus")
        self.assertEqual(default_endpoints({"XDG_RUNTIME_DIR": "/x", "LOCUS_INGEST_ENDPOINT": "tcp://h:1"}),
                         {"ingest": "tcp://h:1", "publish": "ipc:///x/locus/publish.sock", "control": "ipc:///x/locus/control.sock"})


if __name__ == "__main__":
    unittest.main()

"""The client's envelope, numbers, times and gap tracking, without a hub (the Publisher and
Subscriber against bare ZeroMQ sockets in a temporary directory)."""

import datetime
import json
import math
import os
import shutil
import sys
import tempfile
import unittest
from decimal import Decimal

import zmq

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from locus_client import (Envelope, EnvelopeError, Gap, GapTracker, Publisher, Subscriber,  # noqa: E402
                          encode_envelope, event_time, is_valid_topic, parse_envelope, to_json)
from locus_client.envelope import round_half_away  # noqa: E402
from locus_client.endpoints import default_endpoints, runtime_dir  # noqa: E402
from locus_client.gaps import TOPIC_POSITIONS_MAX  # noqa: E402
from locus_client.publisher import TOPIC_SEQ_LIMIT  # noqa: E402


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

    def test_topic_seq_is_written_right_after_seq_and_read_back(self):
        body = encode_envelope("obs.fix", "gps0", 42, "2024-05-17T08:00:00.1Z", {"source": "gps0", "mode": "none"},
                               topic_seq=40)
        self.assertEqual(body, '{"type":"obs.fix","version":1,"producer":"gps0","seq":42,"topic_seq":40,'
                               '"time":"2024-05-17T08:00:00.100Z","payload":{"source":"gps0","mode":"none"}}')
        e = parse_envelope(body)
        self.assertEqual((e.seq, e.topic_seq), (42, 40))
        # Without it: not written, and None when read (a producer of protocol version 1).
        plain = encode_envelope("obs.fix", "gps0", 42, 0, {})
        self.assertNotIn("topic_seq", plain)
        self.assertIsNone(parse_envelope(plain).topic_seq)
        self.assertEqual(parse_envelope(encode_envelope("x.y", "p", 1, 0, {}, 2, 2**63 - 1)).topic_seq, 2**63 - 1)
        # Positional construction as before still works; topic_seq defaults to None.
        self.assertIsNone(Envelope("x.y", 1, "p", 1, "2024-05-17T08:00:00.000Z", {}, "van").topic_seq)

    def test_topic_seq_refused_as_seq_is(self):
        for topic_seq in (0, -1, 2**63, 1.0, True, "1"):
            with self.assertRaises(EnvelopeError, msg=repr(topic_seq)):
                encode_envelope("obs.fix", "gps0", 1, None, {}, topic_seq=topic_seq)
        head = '{"type":"x.y","version":1,"producer":"p","seq":3,"time":"2024-05-17T08:00:00.000Z","payload":{},'
        for bad in ('"topic_seq":-1', '"topic_seq":"2"', '"topic_seq":true', '"topic_seq":2.5', '"topic_seq":null'):
            with self.assertRaises(EnvelopeError, msg=bad):
                parse_envelope(head + bad + "}")
        self.assertEqual(parse_envelope(head + '"topic_seq":0}').topic_seq, 0)  # readable, as seq 0 is


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

    def test_per_topic_interleaved_topics_are_no_gap_and_a_jump_on_one_is_loss(self):
        g = GapTracker(per_topic=True)
        # A replay source: fixes and ticks share seq; subscribed to obs.fix. and clock.tick.
        checks = [("obs.fix.walk", 1, 1), ("clock.tick", 2, 1), ("obs.fix.walk", 3, 2), ("clock.tick", 4, 2),
                  ("obs.fix.walk", 6, 3)]  # seq 5 was on a topic not subscribed to
        for topic, seq, topic_seq in checks:
            self.assertIsNone(g.check("walk", seq, topic, topic_seq), (topic, seq))
        gap = g.check("walk", 9, "obs.fix.walk", 6)  # topic_seq 4 and 5 lost
        self.assertEqual(gap, Gap("walk", 3, 6, 2, topic="obs.fix.walk"))
        self.assertIsNone(g.check("walk", 10, "clock.tick", 3))
        self.assertEqual((g.missed, g.missed_total, g.restarts), ({"walk": 2}, 2, {}))
        # The resume position stays per producer seq, moved by every message.
        self.assertEqual(g.last_seen, {"walk": 10})
        self.assertEqual(g.last_topic_seen, {("walk", "obs.fix.walk"): 6, ("walk", "clock.tick"): 3})

    def test_per_topic_restart_and_going_back(self):
        g = GapTracker({"walk": 40}, per_topic=True)
        self.assertIsNone(g.check("walk", 41, "obs.fix.walk", 30))  # a topic's first message only starts it
        restart = g.check("walk", 1, "obs.fix.walk", 1)
        self.assertEqual(restart, Gap("walk", 30, 1, 0, restarted=True, topic="obs.fix.walk"))
        self.assertIsNone(g.check("walk", 2, "obs.fix.walk", 2))
        self.assertTrue(g.check("walk", 3, "obs.fix.walk", 1).restarted)  # 1 after 2: another restart
        self.assertEqual(g.check("walk", 4, "obs.fix.walk", 5).missed, 3)
        back = g.check("walk", 5, "obs.fix.walk", 3)
        self.assertEqual(back, Gap("walk", 5, 3, 0, topic="obs.fix.walk"))
        self.assertEqual((g.restarts, g.missed), ({"walk": 2}, {"walk": 3}))
        self.assertEqual(g.last_seen, {"walk": 5})

    def test_per_topic_falls_back_to_seq_without_topic_seq(self):
        g = GapTracker(per_topic=True)
        self.assertIsNone(g.check("old", 1, "obs.fix.old"))
        gap = g.check("old", 4, "obs.fix.old")  # lost, or on topics not subscribed to: seq is all there is
        self.assertEqual(gap, Gap("old", 1, 4, 2))
        self.assertIsNone(gap.topic)
        self.assertEqual((g.missed, g.last_topic_seen), ({"old": 2}, {}))
        # A producer that starts writing topic_seq: compared per topic from its first such message.
        self.assertIsNone(g.check("old", 5, "obs.fix.old", 1))
        self.assertIsNone(g.check("old", 7, "obs.fix.old", 2))
        self.assertEqual(g.last_seen, {"old": 7})

    def test_unfiltered_mode_compares_seq_whatever_topic_seq_says(self):
        g = GapTracker()
        self.assertIsNone(g.check("walk", 1, "obs.fix.walk", 1))
        gap = g.check("walk", 3, "obs.fix.walk", 2)  # topic_seq follows on, seq does not: loss everywhere
        self.assertEqual(gap, Gap("walk", 1, 3, 1))
        self.assertTrue(g.check("walk", 1, "clock.tick", 1).restarted)
        self.assertEqual((g.missed, g.restarts, g.last_seen, g.last_topic_seen), ({"walk": 1}, {"walk": 1}, {"walk": 1}, {}))

    def test_per_topic_positions_are_bounded(self):
        g = GapTracker(per_topic=True)
        for i in range(TOPIC_POSITIONS_MAX):
            g.check("ble", i + 1, f"obs.ble.t{i}", 7)
        self.assertEqual(len(g.last_topic_seen), TOPIC_POSITIONS_MAX)
        self.assertIsNone(g.check("ble", TOPIC_POSITIONS_MAX + 1, "obs.ble.t0", 8))  # a known key: kept
        self.assertIsNone(g.check("ble", TOPIC_POSITIONS_MAX + 2, "obs.ble.new", 1))  # one more: all forgotten
        self.assertEqual(g.last_topic_seen, {("ble", "obs.ble.new"): 1})
        self.assertIsNone(g.check("ble", TOPIC_POSITIONS_MAX + 3, "obs.ble.t0", 20))  # a first message again
        self.assertEqual(g.missed, {})


class SocketTests(unittest.TestCase):
    """Publisher and Subscriber over ipc, each against a bare ZeroMQ socket in the test's place."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="locus-envelope-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.context = zmq.Context()
        self.addCleanup(self.context.term)
        self.endpoint = f"ipc://{self.dir}/test.sock"

    def socket(self, kind):
        socket = self.context.socket(kind)
        socket.setsockopt(zmq.LINGER, 0)
        socket.setsockopt(zmq.RCVTIMEO, 5000)
        self.addCleanup(socket.close)
        return socket

    def publisher(self):
        """A Publisher and an XSUB socket bound where it connects, which sends the hub's
        subscription to everything (b"\\x01") until the Publisher has seen it: sent before the
        connection is up, it is dropped."""
        hub = self.socket(zmq.XSUB)
        hub.bind(self.endpoint)
        pub = Publisher("phone", endpoint=self.endpoint, context=self.context, linger=0, wait=False)
        self.addCleanup(pub.close)
        for _ in range(100):
            hub.send(b"\x01")
            if pub.wait_for_hub(0.05):
                return pub, hub
        self.fail("the Publisher never saw the subscription")

    def test_publisher_numbers_each_topic_and_refused_messages_use_no_number(self):
        pub, hub = self.publisher()
        sent = [pub.fix(lat=1, lon=2), pub.publish("status.phone", "x.y", {}), pub.fix(lat=1, lon=2),
                pub.fix(lat=1, lon=2, source="other")]
        with self.assertRaises(EnvelopeError):
            pub.publish("status.phone", "x.y", {"n": math.nan})
        with self.assertRaises(EnvelopeError):
            pub.publish("Status.phone", "x.y", {})
        sent.append(pub.publish("status.phone", "x.y", {}))
        got = [hub.recv_multipart() for _ in sent]
        numbers = [(topic.decode(), parse_envelope(body).seq, parse_envelope(body).topic_seq) for topic, body in got]
        self.assertEqual(numbers, [("obs.fix.phone", 1, 1), ("status.phone", 2, 1), ("obs.fix.phone", 3, 2),
                                   ("obs.fix.other", 4, 1), ("status.phone", 5, 2)])
        self.assertEqual(sent, [1, 2, 3, 4, 5])
        self.assertIn(b'"seq":3,"topic_seq":2,"time":', got[2][1])
        self.assertEqual(pub.topic_seqs, {"obs.fix.phone": 2, "status.phone": 2, "obs.fix.other": 1})

    def test_publisher_starts_every_topic_at_1_again_past_the_topic_limit(self):
        pub, hub = self.publisher()
        pub.publish("a.keep", "x.y", {})
        for i in range(TOPIC_SEQ_LIMIT - 1):
            pub.topic_seqs[f"a.t{i}"] = 5  # as if numbered: TOPIC_SEQ_LIMIT topics now
        pub.publish("a.keep", "x.y", {})  # a known topic: counted on
        pub.publish("a.new", "x.y", {})  # one topic more: every counter forgotten
        self.assertEqual(pub.topic_seqs, {"a.new": 1})
        pub.publish("a.keep", "x.y", {})  # starts at 1 again, which subscribers read as a restart
        got = [parse_envelope(hub.recv_multipart()[1]) for _ in range(4)]
        self.assertEqual([(e.seq, e.topic_seq) for e in got], [(1, 1), (2, 2), (3, 1), (4, 1)])

    def subscribe(self, prefixes):
        hub = self.socket(zmq.XPUB)
        hub.bind(self.endpoint)
        sub = Subscriber(prefixes, endpoint=self.endpoint, context=self.context)
        self.addCleanup(sub.close)
        for _ in prefixes:
            hub.recv()  # its subscriptions arrived: what is sent now reaches it
        return hub, sub

    def send(self, hub, topic, seq, topic_seq=None):
        hub.send_multipart([topic.encode(), encode_envelope("x.y", "walk", seq, 0, {}, topic_seq=topic_seq).encode()])

    def test_a_subscriber_to_some_prefixes_compares_topic_seq(self):
        hub, sub = self.subscribe(["obs.fix.", "clock."])
        self.assertTrue(sub.filtered)
        self.assertTrue(sub.gaps.per_topic)
        for topic, seq, topic_seq in [("obs.fix.walk", 1, 1), ("clock.tick", 2, 1), ("obs.fix.walk", 4, 2),
                                      ("obs.fix.walk", 7, 5), ("status.walk", 8, 9)]:
            self.send(hub, topic, seq, topic_seq)
        got = [sub.receive(timeout=5) for _ in range(4)]
        self.assertEqual([m.gap for m in got[:3]], [None, None, None])
        self.assertEqual(got[3].gap, Gap("walk", 2, 5, 2, topic="obs.fix.walk"))
        self.assertEqual((got[3].topic_seq, sub.gaps.last_seen, sub.gaps.missed), (5, {"walk": 7}, {"walk": 2}))
        self.send(hub, "obs.fix.walk", 10)  # without topic_seq: seq it is
        self.assertEqual(sub.receive(timeout=5).gap, Gap("walk", 7, 10, 2))

    def test_a_subscriber_to_everything_compares_seq(self):
        for prefixes in ([""], ["obs.fix.", ""]):
            with self.subTest(prefixes=prefixes):
                hub, sub = self.subscribe(prefixes)
                self.assertFalse(sub.filtered)
                self.send(hub, "obs.fix.walk", 1, 1)
                self.send(hub, "obs.fix.walk", 3, 2)
                self.assertIsNone(sub.receive(timeout=5).gap)
                self.assertEqual(sub.receive(timeout=5).gap, Gap("walk", 1, 3, 1))
                sub.close()
                hub.close()


class EndpointTests(unittest.TestCase):
    def test_runtime_directory_rule(self):
        self.assertEqual(runtime_dir({"LOCUS_RUNTIME_DIR": "/r/", "XDG_RUNTIME_DIR": "/x"}), "/r")
        self.assertEqual(runtime_dir({"LOCUS_RUNTIME_DIR": "", "XDG_RUNTIME_DIR": "/x"}), "/x/locus")
        self.assertEqual(default_endpoints({"XDG_RUNTIME_DIR": "/x", "LOCUS_INGEST_ENDPOINT": "tcp://h:1"}),
                         {"ingest": "tcp://h:1", "publish": "ipc:///x/locus/publish.sock", "control": "ipc:///x/locus/control.sock"})


if __name__ == "__main__":
    unittest.main()

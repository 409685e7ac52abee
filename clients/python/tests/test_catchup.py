"""Catch-up (docs/protocol.md 13.2) without a daemon: DurableSubscriber, snapshot() and
examples/python/durable_subscriber.py against FakeHub, an in-memory journal served by a ROUTER
with an XPUB as the live publish socket, both on ipc in a temporary directory. Also checks the
schemas of schemas/protocol/ against the tables of 13.2."""

import bisect
import json
import os
import queue
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import zmq

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

from locus_client import CatchupError, CatchupTimeout, DurableSubscriber, Gap, encode_envelope, snapshot  # noqa: E402
from locus_client.envelope import parse_envelope, parse_time  # noqa: E402

REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
SCHEMAS = os.path.join(REPO, "schemas")
EXAMPLE = os.path.join(REPO, "examples", "python", "durable_subscriber.py")
SNAPSHOT_TYPES = ("region.enter", "region.exit", "region.dwell", "region.state",
                  "beacon.enter", "beacon.exit", "beacon.state")


def body(producer, seq, type_="test.event"):
    return encode_envelope(type_, producer, seq, None, {"n": seq})


def now_ms():
    return time.time_ns() // 1_000_000


class Record:
    __slots__ = ("index", "ms", "topic", "body", "producer", "seq")

    def __init__(self, index, ms, topic, body):
        env = parse_envelope(body)
        self.index, self.ms, self.topic, self.body, self.producer, self.seq = index, ms, topic, body, env.producer, env.seq


class FakeHub:
    """What 13.2 says the daemon does, in one thread: every message published through it is
    journaled (unless its topic starts with `exclude`) and then sent on the XPUB; the ROUTER
    answers catchup.request and catchup.snapshot from the journal, the first page of a request
    only once the XPUB has seen its sync token. Requests are checked against the schemas
    (`problems` collects what is wrong). Knobs: `error` (answer that catchup.error), `silent`,
    `ignore_tokens`, `corrupt` (announce one event more than sent), `page_delay` (seconds to
    wait before each page, so that a catch-up takes a while), `on_token` (messages to
    publish when a token's first page is about to be read) and `before_page` (request number ->
    messages to publish before answering it)."""

    def __init__(self, directory, token_wait=5.0, exclude=("obs.", "clock.")):
        self.publish_endpoint = f"ipc://{directory}/publish.sock"
        self.catchup_endpoint = f"ipc://{directory}/catchup.sock"
        self.token_wait = token_wait
        self.exclude = exclude
        self.journal, self.deleted, self.latest = [], [], {}
        self.next_index = 1
        self.requests, self.replies, self.subscriptions, self.log, self.problems = [], [], [], [], []
        self.error, self.silent, self.ignore_tokens, self.corrupt = None, False, False, False
        self.page_delay = 0
        self.on_token, self.before_page = [], {}
        self._tokens, self._parked, self._stream = set(), [], None
        self._commands = queue.Queue()
        self._lock = threading.Lock()
        self._ready = threading.Event()
        from jsonschema import Draft202012Validator
        self._validators = {}
        for kind in ("catchup.request", "catchup.snapshot"):
            with open(os.path.join(SCHEMAS, "protocol", f"{kind}.schema.json")) as f:
                self._validators[kind] = Draft202012Validator(json.load(f))
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        self._ready.wait(5)

    # Called from the test's thread: each is a command the hub's thread carries out.
    def publish(self, topic, body_):
        self._commands.put(("publish", topic, body_))

    def delete_through(self, index):
        self._commands.put(("delete", index))

    def stream(self, producers, interval):
        self._commands.put(("stream", producers, interval))

    def stop_stream(self):
        self._commands.put(("stream", None, None))

    def sync(self):
        """Waits until every command given so far is done."""
        done = threading.Event()
        self._commands.put(("sync", done))
        done.wait(5)

    def journaled(self):
        with self._lock:
            return list(self.deleted) + list(self.journal)

    def wait_for_subscribers(self, count=1, timeout=5):
        deadline = time.monotonic() + timeout
        while len(self.subscriptions) < count and time.monotonic() < deadline:
            time.sleep(0.005)

    def close(self):
        self._commands.put(("stop",))
        self._thread.join(5)

    # The hub's thread.
    def _run(self):
        context = zmq.Context()
        self.xpub = context.socket(zmq.XPUB)
        self.xpub.setsockopt(zmq.XPUB_VERBOSE, 1)
        self.xpub.setsockopt(zmq.SNDHWM, 0)
        self.xpub.setsockopt(zmq.LINGER, 0)
        self.xpub.bind(self.publish_endpoint)
        self.router = context.socket(zmq.ROUTER)
        self.router.setsockopt(zmq.LINGER, 0)
        self.router.bind(self.catchup_endpoint)
        poller = zmq.Poller()
        poller.register(self.xpub, zmq.POLLIN)
        poller.register(self.router, zmq.POLLIN)
        self._ready.set()
        next_due = 0
        try:
            while True:
                while True:
                    try:
                        command = self._commands.get_nowait()
                    except queue.Empty:
                        break
                    if command[0] == "stop":
                        return
                    if command[0] == "publish":
                        self._publish(command[1], command[2])
                    elif command[0] == "delete":
                        with self._lock:
                            while self.journal and self.journal[0].index <= command[1]:
                                self.deleted.append(self.journal.pop(0))
                    elif command[0] == "stream":
                        self._stream = None if command[1] is None else [command[1], command[2], {}]
                        next_due = time.monotonic()
                    elif command[0] == "sync":
                        command[1].set()
                if self._stream is not None:
                    producers, interval, seqs = self._stream
                    while time.monotonic() >= next_due:
                        producer = producers[sum(seqs.values()) % len(producers)]
                        seqs[producer] = seqs.get(producer, 0) + 1
                        self._publish(f"test.event.{producer}", body(producer, seqs[producer]))
                        next_due += interval
                for parked in list(self._parked):
                    deadline, envelope, request = parked
                    if request["token"] in self._tokens or time.monotonic() >= deadline:
                        self._parked.remove(parked)
                        self._answer(envelope, request)
                for socket, _ in poller.poll(2 if self._stream or self._parked else 20):
                    if socket is self.xpub:
                        frame = self.xpub.recv()
                        if frame[:1] == b"\x01":
                            self.subscriptions.append(frame[1:])
                            if frame[1:7] == b"\0sync." and not self.ignore_tokens:
                                self._tokens.add(frame[2:].decode())
                                self.log.append("token")
                    else:
                        self._request(self.router.recv_multipart())
        finally:
            self.xpub.close(0)
            self.router.close(0)
            context.term()

    def _publish(self, topic, body_):
        if not topic.startswith(self.exclude):
            with self._lock:
                record = Record(self.next_index, now_ms(), topic, body_)
                self.journal.append(record)
                self.next_index += 1
            if parse_envelope(body_).type in SNAPSHOT_TYPES:  # the latest per family, producer and condition
                self.latest[(topic.split(".")[0], record.producer, topic.split(".")[-1])] = record
        self.xpub.send_multipart([topic.encode(), body_.encode()])

    def _reply(self, envelope, header, records=()):
        self.replies.append(header)
        frames = [json.dumps(header).encode()]
        for r in records:
            frames += [r.topic.encode(), r.body.encode()]
        self.router.send_multipart(envelope + frames)

    def _error(self, envelope, text):
        self._reply(envelope, {"type": "catchup.error", "version": 1, "error": text})

    def _request(self, frames):
        envelope, raw = frames[:-1], frames[-1]  # identity (and REQ's empty frame), request
        if self.silent:
            return
        try:
            request = json.loads(raw)
        except ValueError:
            return self._error(envelope, "malformed request: not JSON")
        self.requests.append(request)
        validator = self._validators.get(request.get("type"))
        if validator is None:
            return self._error(envelope, f"unknown request type {request.get('type')!r}")
        problems = [e.message for e in validator.iter_errors(request)]
        if problems:
            self.problems += problems
            return self._error(envelope, "malformed request: " + "; ".join(problems))
        if self.error:
            return self._error(envelope, self.error)
        if request["type"] == "catchup.snapshot":
            prefixes = tuple(request.get("topics", [""]))
            records = sorted((r for r in self.latest.values() if r.topic.startswith(prefixes)), key=lambda r: r.index)
            return self._reply(envelope, {"type": "catchup.page", "version": 1, "events": len(records), "end": True},
                               records)
        if "token" in request and request["token"] not in self._tokens:
            self._parked.append((time.monotonic() + self.token_wait, envelope, request))
            return
        self._answer(envelope, request)

    def _answer(self, envelope, request):
        if "token" in request:
            if request["token"] not in self._tokens:
                return self._error(envelope, f"the hub did not see the token {request['token']} within {self.token_wait} s")
            self.log.append("first page")
            for topic, body_ in self.on_token:
                self._publish(topic, body_)
        time.sleep(self.page_delay)
        number = sum(1 for r in self.requests if r.get("type") == "catchup.request")
        for topic, body_ in self.before_page.get(number, ()):
            self._publish(topic, body_)
        with self._lock:
            header, records = self._page(request)
        if self.corrupt:
            header["events"] += 1
        self._reply(envelope, header, records)

    def _page(self, request):
        """One page as 13.2 describes: start, skipping per `after` (restarts detected by the
        numbers going down), topic prefixes, limit, and the cursor to go on."""
        limit, prefixes = request.get("limit", 1000), tuple(request.get("topics", [""]))
        oldest = self.journal[0].index if self.journal else None
        truncated = False
        if "cursor" in request:
            index = request["cursor"]["index"]
            pending = json.loads(json.dumps(request["cursor"].get("pending", {})))
            truncated = oldest is not None and index < oldest and bool(self.deleted) and self.deleted[-1].index >= index
        else:
            index = 1
            after = request.get("after", {})
            pending = {p: {"after": s, "last": 0} for p, s in after.items()}
            truncated = any(r.producer in after and r.seq > after[r.producer] for r in self.deleted)
            if "since" in request:
                since = int(parse_time(request["since"]).timestamp() * 1000)
                times = [r.ms for r in self.journal]
                start = bisect.bisect_left(times, since)
                index = self.journal[start].index if start < len(self.journal) else self.next_index
                truncated = truncated or any(r.ms >= since for r in self.deleted)
        i = next((k for k, r in enumerate(self.journal) if r.index >= index), len(self.journal))
        records = []
        while i < len(self.journal) and len(records) < limit:
            r = self.journal[i]
            i += 1
            p = pending.get(r.producer)
            if p is not None:
                if p["last"] < r.seq <= p["after"]:
                    p["last"] = r.seq
                    continue
                del pending[r.producer]  # past its `after`, or its numbers went down: a restart
            if r.topic.startswith(prefixes):
                records.append(r)
        end = i >= len(self.journal)
        header = {"type": "catchup.page", "version": 1, "events": len(records), "end": end}
        if not end:
            header["next"] = {"index": self.journal[i].index, "pending": pending}
        if oldest is not None:
            header["oldest"] = oldest
        header["newest"] = self.journal[-1].index if self.journal else 0
        if truncated:
            header["truncated"] = True
        return header, records


class WithHub(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="locus-catchup-")
        self.hub = FakeHub(self.dir, **getattr(self, "hub_options", {}))
        self.context = zmq.Context()
        self.subs = []

    def tearDown(self):
        for sub in self.subs:
            sub.close()
        self.context.term()
        self.hub.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def subscriber(self, prefixes=("",), **options):
        sub = DurableSubscriber(prefixes, endpoint=self.hub.publish_endpoint, catchup_endpoint=self.hub.catchup_endpoint,
                                context=self.context, validate=True, schema_directory=SCHEMAS, **options)
        self.subs.append(sub)
        return sub

    def receive(self, sub, count):
        got = []
        for _ in range(count):
            m = sub.receive(timeout=5)
            self.assertIsNotNone(m, f"only {len(got)} of {count} messages arrived")
            got.append(m)
        return got


class JoinTests(WithHub):
    def test_journal_then_live_each_once_in_order_across_pages(self):
        for seq in range(1, 51):  # before anyone subscribed: in the journal only
            self.hub.publish("test.event.a", body("a", seq))
        self.hub.sync()
        # Published once the hub has the token, before the first page is read: journal and live.
        self.hub.on_token = [("test.event.a", body("a", seq)) for seq in range(51, 61)]
        self.hub.on_token += [("obs.fix.gps0", body("gps0", seq, "obs.fix")) for seq in range(1, 4)]  # live only
        self.hub.before_page = {3: [("test.event.a", body("a", seq)) for seq in range(61, 66)]}  # between pages
        gaps = []
        sub = self.subscriber(["test.", "obs."], since="all", limit=20, on_gap=lambda gap, m: gaps.append(gap))
        got = self.receive(sub, 65 + 3)
        self.assertTrue(sub.live)
        for seq in range(66, 71):  # after the catch-up: live only
            self.hub.publish("test.event.a", body("a", seq))
        self.hub.publish("obs.fix.gps0", body("gps0", 4, "obs.fix"))
        got += self.receive(sub, 6)
        self.assertIsNone(sub.receive(timeout=0.2), "a duplicate came through")

        self.assertEqual([m.seq for m in got if m.producer == "a"], list(range(1, 71)))
        self.assertEqual([m.seq for m in got if m.producer == "gps0"], [1, 2, 3, 4])
        self.assertEqual([m.producer for m in got[:65]], ["a"] * 65, "the journal's events come first")
        self.assertEqual((sub.caught_up, sub.skipped, sub.pages), (65, 15, 4))
        self.assertEqual(sub.position, {"a": 70, "gps0": 4})
        self.assertEqual(gaps, [])
        self.assertFalse(sub.truncated)
        # 13.2's join: the prefixes, then the token on the SUB (set before connect(), ZeroMQ
        # would send them in its prefix tree's order, the token first); the first page only
        # after the token; each next request carries the previous page's `next`, and no token.
        self.assertEqual(self.hub.subscriptions[:3], [b"test.", b"obs.", b"\0" + sub.token.encode()])
        self.assertEqual(self.hub.log[:2], ["token", "first page"])
        requests = self.hub.requests
        self.assertEqual(requests[0]["token"], sub.token)
        self.assertEqual(requests[0]["limit"], 20)
        for request, page in zip(requests[1:], self.hub.replies):
            self.assertEqual(request["cursor"], page["next"])
            self.assertNotIn("token", request)
        self.assertEqual(self.hub.problems, [])

    def test_overlap_of_a_producer_also_on_topics_the_journal_does_not_take(self):
        for seq in (1, 2):
            self.hub.publish("test.event.mix", body("mix", seq))
        self.hub.sync()
        self.hub.on_token = [("obs.fix.mix", body("mix", 3, "obs.fix")), ("test.event.mix", body("mix", 4)),
                             ("obs.fix.mix", body("mix", 5, "obs.fix")), ("test.event.mix", body("mix", 6))]
        sub = self.subscriber(since="all")
        got = self.receive(sub, 6)
        self.assertEqual([m.seq for m in got], [1, 2, 4, 6, 3, 5])  # 3 and 5 are not in the journal: passed on
        self.assertEqual(sub.position, {"mix": 6}, "an older live message does not move the position back")
        self.hub.publish("test.event.mix", body("mix", 7))
        self.assertEqual(self.receive(sub, 1)[0].seq, 7)
        self.assertEqual(sub.skipped, 2)

    def test_overlap_of_a_producer_that_restarted_during_the_join(self):
        for seq in range(1, 4):
            self.hub.publish("test.event.r", body("r", seq))
        self.hub.sync()
        self.hub.on_token = [("test.event.r", body("r", seq)) for seq in (4, 5, 1, 2)]  # r restarted after 5
        sub = self.subscriber(since="all")
        got = self.receive(sub, 7)
        self.hub.publish("test.event.r", body("r", 3))
        got += self.receive(sub, 1)
        self.assertEqual([m.seq for m in got], [1, 2, 3, 4, 5, 1, 2, 3])
        self.assertEqual(sub.skipped, 4)  # live 4 and 5 are above the last from the journal (2), yet copies
        self.assertTrue(got[5].gap.restarted)

    def test_resume_after_a_position_with_a_restart_in_the_journal(self):
        for seq in range(1, 11):
            self.hub.publish("test.event.a", body("a", seq))
            self.hub.publish("test.event.b", body("b", seq))
        for seq in range(1, 4):  # a restarted
            self.hub.publish("test.event.a", body("a", seq))
        self.hub.sync()
        gaps = []
        sub = self.subscriber(["test."], after={"a": 8, "b": 2}, limit=3, on_gap=lambda gap, m: gaps.append(gap))
        got = self.receive(sub, 2 + 8 + 3)
        self.assertEqual([(m.producer, m.seq) for m in got],
                         [("b", 3), ("b", 4), ("b", 5), ("b", 6), ("b", 7), ("b", 8), ("a", 9), ("b", 9),
                          ("a", 10), ("b", 10), ("a", 1), ("a", 2), ("a", 3)])
        self.assertEqual([g.restarted for g in gaps], [True])
        self.assertEqual(sub.position, {"a": 3, "b": 10})
        self.assertEqual(self.hub.requests[1]["cursor"]["pending"], {"a": {"after": 8, "last": 5}})

    def test_since_a_time(self):
        for seq in range(1, 6):
            self.hub.publish("test.event.a", body("a", seq))
        self.hub.sync()
        time.sleep(0.01)
        since = time.time()
        time.sleep(0.01)
        for seq in range(6, 9):
            self.hub.publish("test.event.a", body("a", seq))
        self.hub.sync()
        sub = self.subscriber(since=since)
        self.assertEqual([m.seq for m in self.receive(sub, 3)], [6, 7, 8])
        self.assertTrue(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", self.hub.requests[0]["since"]))

    def test_live_only_without_after_or_since_and_gaps(self):
        gaps = []
        sub = self.subscriber(on_gap=lambda gap, m: gaps.append(gap))
        self.hub.wait_for_subscribers()
        for seq in (1, 2, 5):
            self.hub.publish("test.event.a", body("a", seq))
        self.assertEqual([m.seq for m in self.receive(sub, 3)], [1, 2, 5])
        self.assertEqual(self.hub.requests, [])
        self.assertEqual([(g.after, g.seq, g.missed) for g in gaps], [(2, 5, 2)])

    def test_some_prefixes_compare_topic_seq_through_the_catch_up_and_live(self):
        def numbered(topic, seq, topic_seq):
            return topic, encode_envelope("test.event", "w", seq, None, {"n": seq}, topic_seq=topic_seq)
        # w numbers test.event.x and test.event.y in one seq; the subscriber takes x only.
        for topic, seq, topic_seq in [("test.event.x", 1, 1), ("test.event.y", 2, 1), ("test.event.x", 3, 2),
                                      ("test.event.y", 4, 2)]:
            self.hub.publish(*numbered(topic, seq, topic_seq))
        self.hub.sync()
        gaps = []
        sub = self.subscriber(["test.event.x"], since="all", on_gap=lambda gap, m: gaps.append(gap))
        got = self.receive(sub, 2)
        self.assertTrue(sub.live)
        for topic, seq, topic_seq in [("test.event.y", 5, 3), ("test.event.x", 6, 3), ("test.event.x", 9, 6)]:
            self.hub.publish(*numbered(topic, seq, topic_seq))
        got += self.receive(sub, 2)
        self.assertEqual([(m.seq, m.topic_seq) for m in got], [(1, 1), (3, 2), (6, 3), (9, 6)])
        # Only the jump on x (topic_seq 4 and 5) is a gap; y's messages between are none.
        self.assertEqual(gaps, [Gap("w", 3, 6, 2, topic="test.event.x")])
        self.assertEqual((sub.filtered, sub.gaps.missed), (True, {"w": 2}))
        self.assertEqual(sub.position, {"w": 9}, "the position stays per producer seq")

    def test_truncated_is_reported(self):
        for seq in range(1, 21):
            self.hub.publish("test.event.a", body("a", seq))
        self.hub.delete_through(10)  # retention took 1..10
        self.hub.sync()
        truncated, gaps = [], []
        sub = self.subscriber(after={"a": 5}, on_truncated=truncated.append, on_gap=lambda gap, m: gaps.append(gap))
        got = self.receive(sub, 10)
        self.assertEqual([m.seq for m in got], list(range(11, 21)))
        self.assertTrue(sub.truncated)
        self.assertEqual(len(truncated), 1)
        self.assertTrue(truncated[0]["truncated"])
        self.assertEqual([(g.producer, g.after, g.seq, g.missed) for g in gaps], [("a", 5, 11, 5)])

    def test_snapshot(self):
        for seq, (type_, region) in enumerate([("region.enter", "home"), ("region.enter", "work"), ("region.exit", "home"),
                                               ("region.enter", "shop"), ("region.exit", "work")], start=1):
            self.hub.publish(f"{type_}.{region}", body("here", seq, type_))
        self.hub.publish("test.event.a", body("a", 1))
        self.hub.sync()
        got = snapshot(["region."], endpoint=self.hub.catchup_endpoint, context=self.context, validate=True,
                       schema_directory=SCHEMAS)
        self.assertEqual([(m.topic, m.seq) for m in got],
                         [("region.exit.home", 3), ("region.enter.shop", 4), ("region.exit.work", 5)])
        self.assertEqual(self.hub.requests, [{"type": "catchup.snapshot", "version": 1, "topics": ["region."]}])


class ErrorTests(WithHub):
    hub_options = {"token_wait": 0.3}

    def test_catchup_error_raises_and_keeps_raising(self):
        self.hub.error = "the journal is off (hub.journal: false)"
        sub = self.subscriber(since="all")
        with self.assertRaises(CatchupError) as caught:
            sub.receive(timeout=5)
        self.assertEqual(caught.exception.error, "the journal is off (hub.journal: false)")
        self.assertIn("journal is off", str(caught.exception))
        with self.assertRaises(CatchupError):
            sub.receive(timeout=0)
        with self.assertRaises(CatchupError):
            snapshot(endpoint=self.hub.catchup_endpoint, context=self.context)

    def test_token_not_seen(self):
        self.hub.ignore_tokens = True
        sub = self.subscriber(since="all")
        with self.assertRaisesRegex(CatchupError, "did not see the token"):
            sub.receive(timeout=5)

    def test_no_reply_times_out(self):
        self.hub.silent = True
        sub = self.subscriber(since="all", timeout=0.5)
        start = time.monotonic()
        self.assertIsNone(sub.receive(timeout=0.1))  # still waiting for the page
        with self.assertRaises(CatchupTimeout):
            sub.receive()
        self.assertLess(time.monotonic() - start, 2)
        with self.assertRaises(CatchupTimeout):
            snapshot(endpoint=self.hub.catchup_endpoint, context=self.context, timeout=0.2)

    def test_a_reply_that_breaks_the_protocol(self):
        self.hub.publish("test.event.a", body("a", 1))
        self.hub.corrupt = True
        sub = self.subscriber(since="all")
        with self.assertRaisesRegex(CatchupError, "announces 2 events"):
            sub.receive(timeout=5)

    def test_bad_arguments(self):
        for options in ({"limit": 0}, {"limit": 10001}, {"after": {"a": -1}}, {"since": "yesterday"}):
            with self.assertRaises(ValueError, msg=options):
                self.subscriber(**options)
        with self.assertRaises(ValueError):  # refused by the request schema: not a topic prefix
            self.subscriber(["Obs."], since="all")


class ProtocolSchemaTests(unittest.TestCase):
    def load(self, kind):
        with open(os.path.join(SCHEMAS, "protocol", f"{kind}.schema.json")) as f:
            return json.load(f)

    def test_schemas_are_valid_and_not_event_types(self):
        from jsonschema import Draft202012Validator
        for kind in ("catchup.request", "catchup.snapshot", "catchup.page", "catchup.error"):
            schema = self.load(kind)
            Draft202012Validator.check_schema(schema)
            self.assertFalse([k for k in schema if k.startswith("x-locus-")], kind)
            self.assertFalse(schema["additionalProperties"], kind)
        self.assertEqual(self.load("catchup.request")["$defs"]["cursor"], self.load("catchup.page")["$defs"]["cursor"])

    def test_schemas_match_the_tables_of_13_2(self):
        with open(os.path.join(REPO, "docs", "protocol.md"), encoding="utf-8") as f:
            text = f.read()
        section = text[text.index("### 13.2"):]
        for kind in ("catchup.request", "catchup.page"):
            table = section[section.index(f"`{kind}`, version 1"):]
            table = table[table.index("\n|"):]
            table = table[:table.index("\n\n")]
            rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in table.strip().splitlines()[2:]]
            fields = {r[0].strip("`") for r in rows}
            required = {r[0].strip("`") for r in rows if r[-1] == "required"}
            schema = self.load(kind)
            self.assertEqual(fields, set(schema["properties"]), kind)
            self.assertEqual(required, set(schema["required"]), kind)
            self.assertIn(f"`schemas/protocol/{kind}.schema.json`", section)
        self.assertIn("`schemas/protocol/catchup.error.schema.json`", section)
        self.assertNotIn("`schemas/catchup.", section)

    def test_examples(self):
        from jsonschema import Draft202012Validator
        cursor = {"index": 42, "pending": {"here": {"after": 7, "last": 3}}}
        valid = {
            "catchup.request": [{"type": "catchup.request", "version": 1},
                                {"type": "catchup.request", "version": 1, "after": {"here": 7}, "topics": ["region.", ""],
                                 "token": "sync.0123abcd", "limit": 10000, "since": "2024-05-17T08:00:00.100Z"},
                                {"type": "catchup.request", "version": 1, "cursor": cursor}],
            "catchup.snapshot": [{"type": "catchup.snapshot", "version": 1, "topics": ["region."]}],
            "catchup.page": [{"type": "catchup.page", "version": 1, "events": 0, "end": True, "newest": 0},
                             {"type": "catchup.page", "version": 1, "events": 2, "end": False, "next": cursor,
                              "oldest": 1, "newest": 99, "truncated": True},
                             {"type": "catchup.page", "version": 1, "events": 1, "end": False, "next": {"index": 3}}],
            "catchup.error": [{"type": "catchup.error", "version": 1, "error": "the journal is off"}],
        }
        invalid = {
            "catchup.request": [{"type": "catchup.request", "version": 2}, {"type": "catchup.request", "version": 1, "limit": 0},
                                {"type": "catchup.request", "version": 1, "after": {"Here": 1}},
                                {"type": "catchup.request", "version": 1, "token": "\u0000sync.x"},
                                {"type": "catchup.request", "version": 1, "cursor": {"index": 0}},
                                {"type": "catchup.request", "version": 1, "cursor": {"index": 1, "pending": {"a": {"after": 1}}}},
                                {"type": "catchup.request", "version": 1, "extra": 1}],
            "catchup.snapshot": [{"type": "catchup.snapshot", "version": 1, "after": {}}],
            "catchup.page": [{"type": "catchup.page", "version": 1, "events": 0, "end": False},
                             {"type": "catchup.page", "version": 1, "events": 0, "end": True, "next": cursor},
                             {"type": "catchup.page", "version": 1, "events": 1.0, "end": True}],
            "catchup.error": [{"type": "catchup.error", "version": 1}, {"type": "catchup.error", "version": 1, "error": ""}],
        }
        for kind in valid:
            validator = Draft202012Validator(self.load(kind))
            for doc in valid[kind]:
                self.assertEqual([e.message for e in validator.iter_errors(doc)], [], doc)
            for doc in invalid[kind]:
                if kind == "catchup.page" and doc["events"] == 1.0:
                    continue  # jsonschema's integer takes 1.0; the client's strict check is tested below
                self.assertTrue(list(validator.iter_errors(doc)), doc)
        from locus_client.catchup import _protocol_schemas
        self.assertTrue(_protocol_schemas(True, SCHEMAS).problems(invalid["catchup.page"][2]))


class DurableSubscriberExample(unittest.TestCase):
    """examples/python/durable_subscriber.py killed with SIGKILL at random moments while events
    flow: its output has every event journaled since it first started exactly once, in order."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="locus-durable-")
        self.hub = FakeHub(self.dir, token_wait=2.0)
        self.hub.page_delay = 0.02  # kills land in catch-ups too
        self.out = os.path.join(self.dir, "events.jsonl")
        self.state = os.path.join(self.dir, "state.json")

    def tearDown(self):
        self.hub.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def start(self):
        self.stderr = open(os.path.join(self.dir, "stderr.txt"), "a")
        return subprocess.Popen([sys.executable, EXAMPLE, "--out", self.out, "--state", self.state, "--topic", "test.",
                                 "--limit", "50", "--checkpoint-every", "100"],
                                env=dict(os.environ, LOCUS_RUNTIME_DIR=self.dir), stderr=self.stderr,
                                stdout=subprocess.DEVNULL)

    def stop(self, process, sig=signal.SIGTERM):
        process.send_signal(sig)
        status = process.wait(10)
        self.stderr.close()
        return status

    def expected(self):
        with open(self.state) as f:
            since = int(parse_time(json.load(f)["since"]).timestamp() * 1000)
        return [(r.topic, r.body) for r in self.hub.journaled() if r.ms >= since]

    def lines(self):
        with open(self.out, "rb") as f:
            data = f.read()
        self.assertTrue(data.endswith(b"\n") or not data)
        return [(json.loads(line)["topic"], line) for line in data.splitlines()]

    def run_until(self, count, process, timeout=20):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if os.path.exists(self.out):
                with open(self.out, "rb") as f:
                    if f.read().count(b"\n") >= count:
                        return
            self.assertIsNone(process.poll(), self.stderr_text())
            time.sleep(0.05)
        self.fail(f"fewer than {count} lines after {timeout} s; stderr: {self.stderr_text()}")

    def stderr_text(self):
        with open(os.path.join(self.dir, "stderr.txt")) as f:
            return f.read()

    def check_output(self):
        expected = self.expected()
        want = [f'{{"topic":"{topic}","envelope":{body_}}}'.encode() for topic, body_ in expected]
        got = [line for _, line in self.lines()]
        self.assertEqual(len(got), len(set(got)), "duplicates")
        self.assertEqual(got, want)
        return expected

    def test_kill_9_at_random_moments_then_a_torn_line(self):
        seed = int(os.environ.get("CATCHUP_TEST_SEED", random.randrange(1 << 30)))
        rnd = random.Random(seed)
        self.hub.stream(["a", "b"], 0.002)
        time.sleep(0.1)  # events before the first start are not wanted
        for _ in range(6):
            process = self.start()
            time.sleep(rnd.uniform(0.15, 0.9))
            self.stop(process, signal.SIGKILL)
            time.sleep(rnd.uniform(0, 0.3))  # events while it is down: from the journal next time
        self.hub.stop_stream()
        self.hub.sync()
        process = self.start()
        self.run_until(len(self.expected()), process)
        self.assertEqual(self.stop(process), 0, self.stderr_text())
        expected = self.check_output()
        self.assertGreater(len(expected), 500, f"seed {seed}")

        # A torn last line and a checkpoint five lines behind: cut off, fetched again, once.
        with open(self.out, "rb") as f:
            whole = f.read()
        lines = whole.splitlines(keepends=True)
        after = {}
        for line in lines[:-5]:
            env = json.loads(line)["envelope"]
            after[env["producer"]] = env["seq"]
        with open(self.state) as f:
            since = json.load(f)["since"]
        with open(self.state, "w") as f:
            json.dump({"offset": len(b"".join(lines[:-5])), "after": after, "since": since}, f)
        with open(self.out, "wb") as f:
            f.write(b"".join(lines[:-3]) + lines[-3][: len(lines[-3]) // 2])
        process = self.start()
        self.run_until(len(lines), process)
        time.sleep(0.3)
        self.assertEqual(self.stop(process), 0)
        self.assertIn("cut off", self.stderr_text())
        with open(self.out, "rb") as f:
            self.assertEqual(f.read(), whole, f"seed {seed}")


if __name__ == "__main__":
    unittest.main()

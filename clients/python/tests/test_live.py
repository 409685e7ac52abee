"""The client against a real Locus daemon: `locus run` with a standard service (and, for the
exec contract, an exec plugin), with this library publishing and subscribing on its ipc
sockets in a private runtime directory.

The binary: $LOCUS_BINARY, else the repository's .build/debug/locus (make test builds it
first); the tests are skipped if neither exists, and fail if $LOCUS_BINARY names a file that
is not executable."""

import json
import math
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

from locus_client import EnvelopeError, Publisher, SchemaError, Subscriber, validate  # noqa: E402

REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
BINARY = os.environ.get("LOCUS_BINARY") or os.path.join(REPO, ".build", "debug", "locus")
EXAMPLES = os.path.join(REPO, "examples", "python")

CONFIG = """
hub:
  high_water_mark: {hwm}
  external_topics: ["obs.fix.phone"]
log:
  level: {log_level}
{extra}
services:
  - type: standard
    id: here
    distance_filter: 0
    max_horizontal_accuracy: 0
"""


@unittest.skipUnless("LOCUS_BINARY" in os.environ or os.access(BINARY, os.X_OK), f"no locus binary at {BINARY} (set LOCUS_BINARY)")
class LiveDaemon(unittest.TestCase):
    """Starts `locus run` on a config of its own in a temporary runtime directory."""
    hwm = 100_000
    log_level = "warning"
    extra = ""  # more config sections (sources:, sinks:), with {dir} for the temporary directory

    def setUp(self):
        self.assertTrue(os.access(BINARY, os.X_OK), f"LOCUS_BINARY={BINARY} is not an executable")
        self.start = time.monotonic()
        self.dir = tempfile.mkdtemp(prefix="locus-client-")
        self.config = os.path.join(self.dir, "config.yaml")
        with open(self.config, "w") as f:
            f.write(CONFIG.format(hwm=self.hwm, log_level=self.log_level,
                                  extra=self.extra.format(dir=self.dir, python=sys.executable, examples=EXAMPLES)))
        env = dict(os.environ, LOCUS_RUNTIME_DIR=self.dir, LOCUS_STATE_DIR=self.dir)
        for name in ("LOCUS_INGEST_ENDPOINT", "LOCUS_PUBLISH_ENDPOINT", "LOCUS_CONTROL_ENDPOINT", "LOCUS_PLUGIN_ID"):
            env.pop(name, None)
        self.env = env
        self.endpoints = {n: f"ipc://{self.dir}/{n}.sock" for n in ("ingest", "publish")}
        # Its log to a file: a pipe nobody reads could fill and stall the daemon.
        self.log = open(os.path.join(self.dir, "locus.log"), "w+b")
        self.daemon = subprocess.Popen([BINARY, "run", self.config], env=env, stdout=subprocess.DEVNULL, stderr=self.log)
        deadline = time.monotonic() + 20
        while not os.path.exists(os.path.join(self.dir, "publish.sock")):
            if self.daemon.poll() is not None or time.monotonic() > deadline:
                self.fail(f"locus run did not start: {self.daemon_log()[-2000:]}")
            time.sleep(0.02)

    def daemon_log(self):
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def tearDown(self):
        self.daemon.send_signal(signal.SIGTERM)
        try:
            code = self.daemon.wait(10)
        except subprocess.TimeoutExpired:
            self.daemon.kill()
            code = "killed"
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)
        self.assertEqual(code, 0, "locus run did not exit cleanly")

    def subscriber(self, prefixes, **kw):
        sub = Subscriber(prefixes, endpoint=self.endpoints["publish"], **kw)
        self.addCleanup(sub.close)
        return sub

    def publisher(self, producer="phone"):
        pub = Publisher(producer, endpoint=self.endpoints["ingest"], timeout=10)
        self.addCleanup(pub.close)
        return pub

    def wait_until_subscribed(self, pub, sub):
        """Publishes probe fixes until the subscriber receives something (its subscription has
        reached the hub: ZeroMQ keeps no history), drains what came, and returns the next event
        time to use (whole seconds from now: fixes far behind the wall clock's ticks would make
        the standard service report its source lost)."""
        t = int(time.time())
        while time.monotonic() < self.start + 10:
            pub.fix(lat=45.0, lon=14.0, h_accuracy=5, time=t)
            t += 1
            if sub.receive(timeout=0.05) is not None:
                while sub.receive(timeout=0.2) is not None:
                    pass
                return t
        self.fail("the subscriber never received anything")


def body_of(message):
    return json.loads(message.body)


class PublishAndSubscribe(LiveDaemon):
    def test_fixes_in_updates_out_in_order_valid_and_without_gaps(self):
        sub = self.subscriber(["location.update.here"])
        pub = self.publisher()
        t = self.wait_until_subscribed(pub, sub)
        missed_before = sub.gaps.missed_total
        sent = []
        for i in range(50):
            lat, lon = 45.0 + i * 0.001, 14.0 + i * 0.0001
            pub.fix(lat=lat, lon=lon, h_accuracy=5, speed=1.5, time=t + i)
            sent.append((lat, lon))
        got = []
        while len(got) < len(sent):
            m = sub.receive(timeout=5)
            self.assertIsNotNone(m, f"only {len(got)} of {len(sent)} updates arrived")
            got.append(m)
        self.assertEqual([(m.payload["lat"], m.payload["lon"]) for m in got], sent)
        self.assertEqual({(m.topic, m.type, m.version, m.producer) for m in got}, {("location.update.here", "location.update", 1, "here")})
        self.assertTrue(all(m.gap is None for m in got[1:]), [m.gap for m in got if m.gap])
        self.assertEqual([m.seq for m in got], list(range(got[0].seq, got[0].seq + len(got))))
        # Each update carries its fix's event time.
        self.assertEqual([m.envelope.datetime.timestamp() for m in got], [float(t + i) for i in range(len(sent))])
        self.assertEqual(sub.gaps.missed_total, missed_before)
        for m in got:
            validate(m)

    def test_a_burst_faster_than_the_hub_waits_in_the_publisher_and_all_arrives(self):
        # The hub queues at most 32 MiB per publisher (docs/protocol.md 2.3): 3,000 messages of
        # 60 KB outrun it, and the rest must wait in the Publisher, not be dropped there.
        sub = self.subscriber(["obs.fix.burst", "obs.ble.burst"], high_water_mark=0)
        pub = self.publisher("burst")
        t = int(time.time())
        while sub.receive(timeout=0.05) is None:
            pub.fix(lat=45.0, lon=14.0, time=t)
        while sub.receive(timeout=0.2) is not None:
            pass
        first = pub.seq + 1
        # The hub checks an outside payload against its schema: the 60 KB go where a schema
        # allows a long string (a BLE device's name), not into a key obs.fix does not have.
        name = "x" * 60_000
        for i in range(3000):
            pub.publish("obs.ble.burst", "obs.ble", {"source": "burst", "address": "AA:BB:CC:DD:EE:FF", "rssi": -60, "name": name}, time=t)
        seqs = []
        while len(seqs) < 3000:
            m = sub.receive(timeout=10)
            if m is None:
                break
            seqs.append(m.seq)
        self.assertEqual(seqs, list(range(first, first + 3000)), f"{len(seqs)} of 3000 arrived")

    def test_the_envelope_on_the_wire(self):
        sub = self.subscriber(["obs.fix.phone"])
        pub = self.publisher()
        self.wait_until_subscribed(pub, sub)
        seq = pub.fix(lat=45.12345678951, lon=-0.00003, time="2024-05-17T10:00:00.123999+02:00",
                      h_accuracy=4.0, course=-10, speed=1.2345, satellites_used=7, alt_msl=None)
        m = sub.receive(timeout=5)
        self.assertIsNotNone(m)
        # Keys in Locus's order, compact, fixed point rounded half away from zero to each field's
        # digits, course wrapped into [0, 360), None left out, time in UTC with milliseconds.
        # topic_seq right after seq: this publisher's only topic, so the same number.
        self.assertEqual(pub.topic_seqs, {"obs.fix.phone": seq})
        self.assertEqual(m.body, '{"type":"obs.fix","version":1,"producer":"phone","seq":%d,"topic_seq":%d,'
                                 '"time":"2024-05-17T08:00:00.123Z",'
                                 '"payload":{"source":"phone","mode":"2d","lat":45.12345679,"lon":-0.00003,"speed":1.235,'
                                 '"course":350,"satellites_used":7,"h_accuracy":4}}' % (seq, seq))
        self.assertEqual((m.topic, m.seq, m.topic_seq, m.gap), ("obs.fix.phone", seq, seq, None))
        validate(m)

    def test_refused_messages_send_nothing_and_use_no_sequence_number(self):
        sub = self.subscriber(["obs.fix.phone"])
        pub = self.publisher()
        self.wait_until_subscribed(pub, sub)
        before, topic_seqs = pub.seq, dict(pub.topic_seqs)
        refused = [
            lambda: pub.fix(lat=math.nan, lon=14.0),
            lambda: pub.fix(lat=45.0, lon=math.inf),
            lambda: pub.fix(lat=91.0, lon=14.0),
            lambda: pub.fix(lat=45.0, lon=14.0, speed=math.nan),
            lambda: pub.fix(lat=45.0, lon=14.0, h_acuracy=5),  # a typo
            lambda: pub.publish("Obs.Fix", "obs.fix", {"source": "phone", "mode": "2d", "lat": 1, "lon": 1}),
            lambda: pub.publish("obs..fix", "obs.fix", {}),
            lambda: pub.publish("o." * 127 + "ab", "obs.fix", {}),  # 256 bytes
            lambda: pub.publish("obs.fix.phone", "obs.fix", {"source": "phone", "x": [[math.inf]]}),
            lambda: pub.publish("obs.fix.phone", "obs.fix", {"source": "phone"}, time=math.nan),
        ]
        for i, attempt in enumerate(refused):
            with self.assertRaises(EnvelopeError, msg=f"attempt {i}"):
                attempt()
        self.assertEqual((pub.seq, pub.topic_seqs), (before, topic_seqs))
        pub.fix(lat=45.0, lon=14.0, time=1_800_000_000)
        m = sub.receive(timeout=5)
        self.assertEqual((m.seq, m.topic_seq, m.gap, m.payload["lat"]), (before + 1, topic_seqs["obs.fix.phone"] + 1, None, 45))
        self.assertIsNone(sub.receive(timeout=0.3), "a refused message reached the bus")

    def test_a_sequence_jump_and_a_restart_are_seen_as_gaps(self):
        seen = []
        sub = self.subscriber(["obs.fix.phone"], on_gap=lambda gap, message: seen.append((gap, message.seq)))
        pub = self.publisher()
        t = self.wait_until_subscribed(pub, sub)
        self.assertEqual(seen, [])
        a = pub.fix(lat=45.0, lon=14.0, time=t)
        ta = pub.topic_seqs["obs.fix.phone"]
        pub.seq += 2  # the lower-level hook: seq a+1, a+2 skipped, as if on topics not subscribed to
        b = pub.fix(lat=45.0, lon=14.0, time=t + 1)  # topic_seq follows on: no gap for this subscriber
        pub.seq += 3  # both numbers skipped: messages of this topic lost
        pub.topic_seqs["obs.fix.phone"] += 3
        c = pub.fix(lat=45.0, lon=14.0, time=t + 2)
        pub.close()
        again = self.publisher()  # the same producer started again: seq and topic_seq 1
        d = again.fix(lat=45.0, lon=14.0, time=t + 3)
        got = [sub.receive(timeout=5) for _ in range(4)]
        self.assertNotIn(None, got)
        self.assertEqual([m.seq for m in got], [a, b, c, d])
        self.assertEqual([m.topic_seq for m in got], [ta, ta + 1, ta + 5, 1])
        self.assertEqual((b, c, d), (a + 3, a + 7, 1))
        self.assertEqual([m.gap for m in got[:2]], [None, None])
        gap, restart = got[2].gap, got[3].gap
        self.assertEqual((gap.topic, gap.after, gap.seq, gap.missed, gap.restarted), ("obs.fix.phone", ta + 1, ta + 5, 3, False))
        self.assertEqual((restart.topic, restart.after, restart.seq, restart.missed, restart.restarted),
                         ("obs.fix.phone", ta + 5, 1, 0, True))
        self.assertEqual([(g.producer, s) for g, s in seen], [("phone", c), ("phone", 1)])
        self.assertEqual((sub.gaps.missed, sub.gaps.restarts, sub.gaps.last_seen["phone"]), ({"phone": 3}, {"phone": 1}, 1))

    def test_a_subscriber_to_everything_compares_seq(self):
        seen = []
        sub = self.subscriber([""], on_gap=lambda gap, message: seen.append(gap) if message.producer == "phone" else None)
        pub = self.publisher()
        t = self.wait_until_subscribed(pub, sub)
        seen.clear()  # the probes' own start
        a = pub.fix(lat=45.0, lon=14.0, time=t)
        pub.seq += 2  # topic_seq follows on, seq does not: subscribed to everything, that is loss
        pub.fix(lat=45.0, lon=14.0, time=t + 1)
        deadline = time.monotonic() + 5
        while not seen and time.monotonic() < deadline:
            sub.receive(timeout=0.2)
        self.assertEqual([(g.topic, g.after, g.seq, g.missed) for g in seen], [(None, a, a + 3, 2)])

    def test_validate_accepts_real_events_and_rejects_broken_ones(self):
        sub = self.subscriber([""])
        pub = self.publisher()
        t = self.wait_until_subscribed(pub, sub)
        for i in range(3):
            pub.fix(lat=45.0 + i * 0.001, lon=14.0, alt_msl=300.5, h_accuracy=5, speed=1.5, course=90, time=t + i)
        got = {}
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not {"obs.fix", "location.update", "clock.tick"} <= set(got):
            m = sub.receive(timeout=0.5)
            if m is not None:
                got.setdefault(m.type, []).append(m)
                validate(m)  # every real event passes
        self.assertLessEqual({"obs.fix", "location.update", "clock.tick"}, set(got), list(got))
        real = got["location.update"][0]

        drop = object()

        def broken(topic=real.topic, body=None, **changes):
            e = json.loads(real.body)
            payload = changes.pop("payload", {})
            e.update(changes)
            for k, v in payload.items():
                if v is drop:
                    del e["payload"][k]
                else:
                    e["payload"][k] = v
            return topic, body if body is not None else e

        cases = {
            "'lat' is a required property": broken(payload={"lat": drop}),
            "'colour' was unexpected": broken(payload={"colour": "red"}),
            "91 is greater than the maximum": broken(payload={"lat": 91}),
            "'4d' is not one of": broken(payload={"mode": "4d"}),
            "payload.h_accuracy: None is not of type": broken(payload={"h_accuracy": None}),
            "envelope.seq: 0 is less than the minimum": broken(seq=0),
            "envelope.topic_seq: 0 is less than the minimum": broken(topic_seq=0),
            "does not match": broken(time="2024-05-17T08:00:00Z"),
            "version 2 has no schema": broken(version=2),
            "unknown event type 'location.teleport'": broken(type="location.teleport"),
            "does not fit the type": broken(topic="obs.fix.here"),
            "topic 'Location.update.here' is not valid": broken(topic="Location.update.here"),
            "differs from payload.source": ("obs.fix.gps9", body_of(got["obs.fix"][0])),
            "5.0 is not of type 'integer'": broken(body=real.body.replace('"version":1', '"version":5.0')),
            "not valid JSON": broken(body=real.body.replace('"lat":', '"lat":NaN,"x":')),
            "duplicate key": broken(body=real.body.replace('"lat":', '"lat":1,"lat":')),
        }
        for fragment, (topic, body) in cases.items():
            with self.assertRaises(SchemaError, msg=fragment) as caught:
                validate(topic, body)
            self.assertTrue(any(fragment in p for p in caught.exception.problems), f"{fragment!r} not in {caught.exception.problems}")


class LossIsSeenAsGaps(LiveDaemon):
    hwm = 20  # the hub queues at most 20 messages per subscriber

    def test_a_subscriber_that_falls_behind_sees_every_loss_as_a_gap(self):
        sub = self.subscriber(["obs.fix.phone"], high_water_mark=10)
        pub = self.publisher()
        t = self.wait_until_subscribed(pub, sub)
        first = pub.seq + 1
        for i in range(5000):  # the subscriber reads none of these meanwhile
            pub.fix(lat=45.0, lon=14.0, time=t + i)
        time.sleep(0.5)
        got = []
        while (m := sub.receive(timeout=0.5)) is not None:
            got.append(m)
        # A loss shows at the next message that arrives: what was dropped at the end of the
        # burst shows once the queues have room again.
        last = pub.fix(lat=45.0, lon=14.0, time=t + 5000)
        m = sub.receive(timeout=5)
        self.assertIsNotNone(m, "the message after the burst did not arrive")
        got.append(m)
        self.assertEqual(m.seq, last)
        missed = sub.gaps.missed.get("phone", 0)
        self.assertGreater(missed, 0, "5,001 messages through queues of about 30 lost nothing?")
        self.assertLess(len(got), 5001)
        # Every message from the first of the burst to the last is either received or counted.
        self.assertEqual(len(got) + missed, last - first + 1)
        self.assertEqual(sum(m.gap.missed for m in got if m.gap), missed)
        self.assertEqual([m.seq for m in got], sorted(m.seq for m in got))


class ExecContract(LiveDaemon):
    """examples/python/source.py (which uses this library) run by Locus's exec plugin: the
    environment it gets, its sequence numbers, its status events and its log lines."""
    log_level = "info"
    extra = """
sources:
  - type: exec
    id: sim
    command: ["{python}", "{examples}/source.py", "--rate", "50", "--count", "5"]
    produces: ["obs.fix.sim"]
sinks:
  - type: file
    id: archive
    path: {dir}/events.jsonl
    topics: ["obs.fix.sim", "status.sim"]
"""

    def test_an_exec_program_publishes_with_its_plugin_id_and_ends_stopped(self):
        path = os.path.join(self.dir, "events.jsonl")

        def lines():
            try:
                with open(path) as f:
                    return [json.loads(line) for line in f if line.endswith("\n")]
            except FileNotFoundError:
                return []
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            states = [r["envelope"]["payload"]["state"] for r in lines() if r["topic"] == "status.sim"]
            if "stopped" in states:
                break
            time.sleep(0.1)
        records = lines()
        fixes = [r for r in records if r["topic"] == "obs.fix.sim"]
        statuses = [r["envelope"]["payload"] for r in records if r["topic"] == "status.sim"]
        self.assertEqual([s["state"] for s in statuses], ["starting", "running", "stopped"], self.daemon_log()[-2000:])
        self.assertEqual(statuses[-1].get("reason"), "finished")  # exit status 0: not restarted
        self.assertEqual([f["envelope"]["seq"] for f in fixes], [1, 2, 3, 4, 5])
        self.assertEqual([f["envelope"]["topic_seq"] for f in fixes], [1, 2, 3, 4, 5])
        self.assertEqual({(f["envelope"]["producer"], f["envelope"]["payload"]["source"]) for f in fixes}, {("sim", "sim")})
        for r in records:
            validate(r["topic"], r["envelope"])
        log = self.daemon_log()
        self.assertIn("source.py: stopping after 5 fixes", log)  # its stderr, in Locus's log
        self.assertIn("locus.sim", log)


class Examples(LiveDaemon):
    def test_subscriber_py_prints_recording_lines_and_reports_a_gap(self):
        script = os.path.join(EXAMPLES, "subscriber.py")
        proc = subprocess.Popen([sys.executable, script, "--json", "--timeout", "1", "--endpoint", self.endpoints["publish"],
                                 "obs.fix.phone"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
        self.addCleanup(lambda: proc.poll() is None and proc.kill())
        pub = self.publisher()
        t = int(time.time())
        while True:  # probes until the subscriber prints one (its subscription reached the hub)
            self.assertLess(time.monotonic(), self.start + 10, "subscriber.py printed nothing")
            pub.fix(lat=45.0, lon=14.0, time=t)
            t += 1
            if select.select([proc.stdout], [], [], 0.05)[0]:
                first = proc.stdout.readline()  # unbuffered: reads exactly one line
                break
        time.sleep(0.2)
        pub.seq += 2  # seq alone would be other topics: the gap is in topic_seq
        pub.topic_seqs["obs.fix.phone"] += 2
        for i in range(3):
            pub.fix(lat=45.5, lon=14.5, h_accuracy=3, time=t + i)
        out, err = proc.communicate(timeout=15)
        self.assertEqual(proc.returncode, 0, err)
        records = [json.loads(line) for line in (first + out).decode().splitlines()]
        seqs = [r["envelope"]["seq"] for r in records]
        self.assertEqual(seqs[-3:], [pub.seq - 2, pub.seq - 1, pub.seq])
        self.assertEqual(seqs[:-3], list(range(seqs[0], pub.seq - 5 + 1)))
        # One topic only: its topic_seq is seq, and a jump in it is loss (no "other topics").
        self.assertEqual([r["envelope"]["topic_seq"] for r in records], seqs)
        self.assertEqual(err.decode().strip(),
                         f"gap: phone obs.fix.phone topic_seq {pub.seq - 5} -> {pub.seq - 2}, 2 message(s) lost")
        for r in records:
            self.assertEqual(set(r), {"topic", "envelope"})
            validate(r["topic"], r["envelope"])

    def test_phone_bridge_publishes_stdin_and_prints_the_updates(self):
        script = os.path.join(EXAMPLES, "phone_bridge.py")
        run = subprocess.run([sys.executable, script, "--producer", "phone", "--ingest", self.endpoints["ingest"],
                              "--publish", self.endpoints["publish"], "--wait", "2"],
                             input="45.7712,14.3564,8\n45.7723,14.3570,6\nnot,a,fix\n", capture_output=True, text=True, timeout=60)
        self.assertEqual(run.returncode, 0, run.stderr)
        lines = run.stdout.splitlines()
        self.assertEqual([line.split("  ")[1:3] for line in lines],
                         [["location.update.here", "45.7712,14.3564"], ["location.update.here", "45.7723,14.357"]], run.stdout)
        self.assertIn("line 3", run.stderr)


if __name__ == "__main__":
    unittest.main()

"""The client against a real Locus daemon: `locus run` with a standard service, outside
publisher and subscriber on its ipc sockets. The binary: $LOCUS_BINARY, else the repository's
.build/debug/locus (make test builds it first); skipped if neither exists."""

import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

from locus_client import EnvelopeError, Publisher, PublisherError, SchemaError, Subscriber, validate  # noqa: E402

REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
BINARY = os.environ.get("LOCUS_BINARY") or os.path.join(REPO, ".build", "debug", "locus")

CONFIG = """
hub:
  high_water_mark: {hwm}
  external_topics: ["obs.fix.phone"]
log:
  level: warning
services:
  - type: standard
    id: here
    distance_filter: 0
    max_horizontal_accuracy: 0
"""


# Given explicitly (make test does), a missing binary fails instead of skipping.
@unittest.skipUnless("LOCUS_BINARY" in os.environ or os.access(BINARY, os.X_OK), f"no locus binary at {BINARY} (set LOCUS_BINARY)")
class LiveDaemon(unittest.TestCase):
    hwm = 100_000

    def setUp(self):
        self.assertTrue(os.access(BINARY, os.X_OK), f"LOCUS_BINARY={BINARY} is not an executable")
        self.dir = tempfile.mkdtemp(prefix="locus-client-")
        config = os.path.join(self.dir, "config.yaml")
        with open(config, "w") as f:
            f.write(CONFIG.format(hwm=self.hwm))
        env = dict(os.environ, LOCUS_RUNTIME_DIR=self.dir, LOCUS_STATE_DIR=self.dir)
        for name in ("LOCUS_INGEST_ENDPOINT", "LOCUS_PUBLISH_ENDPOINT", "LOCUS_CONTROL_ENDPOINT", "LOCUS_PLUGIN_ID"):
            env.pop(name, None)
        self.endpoints = {n: f"ipc://{self.dir}/{n}.sock" for n in ("ingest", "publish")}
        # Its log to a file: a pipe nobody reads could fill and stall the daemon.
        self.log = open(os.path.join(self.dir, "locus.log"), "w+b")
        self.daemon = subprocess.Popen([BINARY, "run", config], env=env, stdout=subprocess.DEVNULL, stderr=self.log)
        deadline = time.monotonic() + 20
        while not os.path.exists(os.path.join(self.dir, "publish.sock")):
            if self.daemon.poll() is not None or time.monotonic() > deadline:
                self.log.seek(0)
                self.fail(f"locus run did not start: {self.log.read().decode()[-2000:]}")
            time.sleep(0.05)

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

    def publisher(self):
        pub = Publisher("phone", endpoint=self.endpoints["ingest"], timeout=10)
        self.addCleanup(pub.close)
        return pub

    def wait_until_subscribed(self, pub, sub, t0):
        """Publishes probe fixes until the subscriber gets something back (its subscription has
        reached the hub); returns the next event time to use."""
        t = t0
        while time.monotonic() < self.start + 10:
            pub.fix(lat=45.0, lon=14.0, h_accuracy=5, time=t)
            t += 1
            if sub.receive(timeout=0.05) is not None:
                while sub.receive(timeout=0.2) is not None:
                    pass
                return t
        self.fail("the subscriber never received anything")


class PublishAndSubscribe(LiveDaemon):
    def test_fixes_in_updates_out_in_order_valid_and_without_gaps(self):
        self.start = time.monotonic()
        sub = self.subscriber(["location.update.here"])
        pub = self.publisher()
        t = self.wait_until_subscribed(pub, sub, 1_700_000_000)
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
        self.assertTrue(all(m.gap is None for m in got[1:]), [m.gap for m in got if m.gap])
        self.assertEqual([m.seq for m in got], list(range(got[0].seq, got[0].seq + len(got))))
        # Each update carries its fix's event time.
        self.assertEqual([m.envelope.datetime.timestamp() for m in got], [float(t + i) for i in range(len(sent))])
        self.assertEqual(sub.gaps.missed_total, 0)
        for m in got:
            validate(m.topic, {"type": m.type, "version": m.version, "producer": m.producer, "seq": m.seq,
                               "time": m.time, "payload": m.payload})

    def test_refused_messages_send_nothing_and_use_no_sequence_number(self):
        self.start = time.monotonic()
        sub = self.subscriber(["obs.fix.phone"])
        pub = self.publisher()
        self.wait_until_subscribed(pub, sub, 1_700_000_000)
        before = pub.seq
        with self.assertRaises(EnvelopeError):
            pub.fix(lat=math.nan, lon=14.0)
        with self.assertRaises(EnvelopeError):
            pub.fix(lat=91.0, lon=14.0)
        with self.assertRaises(EnvelopeError):
            pub.publish("Obs.Fix", "obs.fix", {"source": "phone", "mode": "2d", "lat": 1, "lon": 1})
        self.assertEqual(pub.seq, before)
        pub.fix(lat=45.0, lon=14.0, time=1_800_000_000)
        m = sub.receive(timeout=5)
        self.assertEqual((m.seq, m.gap), (before + 1, None))

    def test_validate_refuses_what_the_schemas_refuse(self):
        good = {"type": "obs.fix", "version": 1, "producer": "phone", "seq": 1, "time": "2024-05-17T08:00:00.000Z",
                "payload": {"source": "phone", "mode": "2d", "lat": 45, "lon": 14}}
        validate("obs.fix.phone", good)
        for change in ({"lat": 91}, {"colour": "red"}, {"mode": "4d"}, {"h_accuracy": None}):
            bad = dict(good, payload=dict(good["payload"], **change))
            with self.assertRaises(SchemaError, msg=str(change)):
                validate("obs.fix.phone", bad)
        with self.assertRaises(SchemaError):
            validate("obs.fix.phone", dict(good, seq=0))


class PhoneBridgeExample(LiveDaemon):
    def test_the_example_publishes_stdin_and_prints_the_updates(self):
        script = os.path.join(REPO, "examples", "python", "phone_bridge.py")
        run = subprocess.run([sys.executable, script, "--producer", "phone", "--ingest", self.endpoints["ingest"],
                              "--publish", self.endpoints["publish"], "--wait", "2"],
                             input="45.7712,14.3564,8\n45.7723,14.3570,6\nnot,a,fix\n", capture_output=True, text=True, timeout=60)
        self.assertEqual(run.returncode, 0, run.stderr)
        lines = run.stdout.splitlines()
        self.assertEqual([line.split("  ")[1:3] for line in lines],
                         [["location.update.here", "45.7712,14.3564"], ["location.update.here", "45.7723,14.357"]], run.stdout)
        self.assertIn("line 3", run.stderr)


class LossIsSeenAsGaps(LiveDaemon):
    hwm = 20  # the hub queues at most 20 messages per subscriber

    def test_a_subscriber_that_falls_behind_sees_every_loss_as_a_gap(self):
        self.start = time.monotonic()
        sub = self.subscriber(["obs.fix.phone"], high_water_mark=10)
        pub = self.publisher()
        t = self.wait_until_subscribed(pub, sub, 1_700_000_000)
        first = pub.seq + 1
        for i in range(5000):  # the subscriber reads none of these meanwhile
            pub.fix(lat=45.0, lon=14.0, time=t + i)
        time.sleep(0.5)
        got = []
        while (m := sub.receive(timeout=1)) is not None:
            got.append(m)
        self.assertTrue(got, "nothing arrived")
        missed = sub.gaps.missed.get("phone", 0)
        self.assertGreater(missed, 0, "5,000 messages through queues of 30 lost nothing?")
        # Every message between the first of the burst and the last received is either
        # received or counted in a gap.
        self.assertEqual(len(got) + missed, got[-1].seq - first + 1)
        self.assertEqual(sum(m.gap.missed for m in got if m.gap), missed)


if __name__ == "__main__":
    unittest.main()

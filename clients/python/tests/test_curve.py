"""CURVE in the client: reading keys (no daemon), then a real `locus run` with CURVE tcp
endpoints and keys from `locus keygen`: an authorized key receives, publishes and catches up;
an unknown key and a plain socket get nothing.

The binary is found as in test_live.py ($LOCUS_BINARY, else .build/debug/locus)."""

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest
from unittest import mock

import zmq
import zmq.auth

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

from locus_client import (  # noqa: E402
    CurveKeyError, DurableSubscriber, Publisher, PublisherError, Subscriber, curve_options)

REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
BINARY = os.environ.get("LOCUS_BINARY") or os.path.join(REPO, ".build", "debug", "locus")
WALK = os.path.join(REPO, "Tests", "EndToEndTests", "Fixtures", "walk-short.jsonl")
NO_KEYS = {"LOCUS_SERVER_KEY": "", "LOCUS_CLIENT_KEY": ""}  # empty counts as unset

CONFIG = """
hub:
  publish:
    - ipc://{dir}/publish.sock
    - endpoint: tcp://127.0.0.1:{publish}
      curve: {{secret_key_file: keys/server.key_secret, authorized_keys: clients}}
  ingest:
    - ipc://{dir}/ingest.sock
    - endpoint: tcp://127.0.0.1:{ingest}
      curve: {{secret_key_file: keys/server.key_secret, authorized_keys: clients}}
  catchup:
    - ipc://{dir}/catchup.sock
    - endpoint: tcp://127.0.0.1:{catchup}
      curve: {{secret_key_file: keys/server.key_secret, authorized_keys: clients}}
  external_topics: ["obs.fix.alice"]
log:
  level: warning
sources:
  - {{type: replay, id: walk, file: "{walk}", speed: 100, loop: true}}
services:
  - {{type: standard, id: here}}
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class KeyOptions(unittest.TestCase):
    """curve_options and the constructors' key handling, with certificates pyzmq writes."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="locus-curve-keys-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        self.server, _ = zmq.auth.create_certificates(self.dir, "server")
        self.alice_public, self.alice_secret = zmq.auth.create_certificates(self.dir, "alice")

    def path(self, name):
        return os.path.join(self.dir, name)

    def error(self, *args, **kw):
        with self.assertRaises(CurveKeyError) as caught:
            curve_options(*args, **kw)
        return str(caught.exception)

    def test_the_three_options_from_certificates_or_a_z85_server_key(self):
        server_public, _ = zmq.auth.load_certificate(self.server)
        public, secret = zmq.auth.load_certificate(self.alice_secret)
        expected = {"curve_serverkey": server_public, "curve_publickey": public, "curve_secretkey": secret}
        self.assertEqual(curve_options(self.server, self.alice_secret, environ={}), expected)
        self.assertEqual(curve_options(server_public.decode(), self.alice_secret, environ={}), expected)
        self.assertEqual(curve_options(environ={"LOCUS_SERVER_KEY": self.server, "LOCUS_CLIENT_KEY": self.alice_secret}),
                         expected)
        self.assertIsNone(curve_options(environ=NO_KEYS))

    def test_clear_errors_for_keys_that_cannot_be_used(self):
        self.assertIn("not NAME.key", self.error(self.server, self.alice_public, environ={}))
        self.assertIn("does not exist", self.error(self.path("nope.key"), self.alice_secret, environ={}))
        self.assertIn("is not a file", self.error(self.dir, self.alice_secret, environ={}))
        with open(self.path("notes.txt"), "w") as f:
            f.write("public-key\n")
        self.assertIn("not a CURVE certificate", self.error(self.server, self.path("notes.txt"), environ={}))
        self.assertIn("LOCUS_CLIENT_KEY", self.error(self.server, environ={}))
        self.assertIn("LOCUS_SERVER_KEY", self.error(key=self.alice_secret, environ={}))
        # A secret certificate whose secret-key is another's.
        _, bob_secret = zmq.auth.create_certificates(self.dir, "bob")
        with open(self.alice_secret) as a, open(bob_secret) as b:
            alice_lines, bob_lines = a.read().splitlines(), b.read().splitlines()
        mixed = [line for line in alice_lines if "secret-key" not in line] + [line for line in bob_lines if "secret-key" in line]
        with open(self.path("mixed.key_secret"), "w") as f:
            f.write("\n".join(mixed) + "\n")
        self.assertIn("does not belong", self.error(self.server, self.path("mixed.key_secret"), environ={}))

    def test_keys_apply_to_tcp_endpoints_only_and_are_checked_before_a_socket_exists(self):
        broken = {"LOCUS_SERVER_KEY": self.path("nope.key"), "LOCUS_CLIENT_KEY": self.alice_secret}
        with mock.patch.dict(os.environ, broken):
            # Locus never encrypts ipc: keys an exec program inherits must not break its ipc socket.
            with Subscriber(endpoint="ipc:///nonexistent/publish.sock") as sub:
                self.assertIsNone(sub.curve)
            for make in (lambda: Subscriber(endpoint="tcp://127.0.0.1:9"),
                         lambda: Publisher("alice", endpoint="tcp://127.0.0.1:9", wait=False),
                         lambda: DurableSubscriber(since="all", endpoint="ipc:///nonexistent/publish.sock",
                                                   catchup_endpoint="tcp://127.0.0.1:9")):
                with self.assertRaisesRegex(CurveKeyError, "does not exist"):
                    make()


@unittest.skipUnless("LOCUS_BINARY" in os.environ or os.access(BINARY, os.X_OK), f"no locus binary at {BINARY} (set LOCUS_BINARY)")
class CurveDaemon(unittest.TestCase):
    """One `locus run` for the class: publish, ingest and catch-up on CURVE loopback tcp, the
    same on ipc, a replay and a standard service. alice's key is authorized; eve's is not."""

    @classmethod
    def setUpClass(cls):
        if not os.access(BINARY, os.X_OK):
            raise AssertionError(f"LOCUS_BINARY={BINARY} is not an executable")
        cls.dir = tempfile.mkdtemp(prefix="locus-curve-")
        cls.addClassCleanup(shutil.rmtree, cls.dir, ignore_errors=True)
        keys = os.path.join(cls.dir, "keys")
        for name in ("server", "alice", "eve"):
            subprocess.run([BINARY, "keygen", name, "-d", keys], check=True, capture_output=True, timeout=30)
        os.mkdir(os.path.join(cls.dir, "clients"))
        shutil.copy(os.path.join(keys, "alice.key"), os.path.join(cls.dir, "clients"))
        cls.server_key = os.path.join(keys, "server.key")
        cls.alice = os.path.join(keys, "alice.key_secret")
        cls.eve = os.path.join(keys, "eve.key_secret")
        ports = {name: free_port() for name in ("publish", "ingest", "catchup")}
        cls.tcp = {name: f"tcp://127.0.0.1:{port}" for name, port in ports.items()}
        cls.ipc = {name: f"ipc://{cls.dir}/{name}.sock" for name in ("publish", "ingest")}
        config = os.path.join(cls.dir, "config.yaml")
        with open(config, "w") as f:
            f.write(CONFIG.format(dir=cls.dir, walk=WALK, **ports))
        env = dict(os.environ, LOCUS_RUNTIME_DIR=cls.dir, LOCUS_STATE_DIR=cls.dir, **NO_KEYS)
        cls.log = open(os.path.join(cls.dir, "locus.log"), "w+b")
        cls.addClassCleanup(cls.log.close)
        cls.daemon = subprocess.Popen([BINARY, "run", config], env=env, stdout=subprocess.DEVNULL, stderr=cls.log)
        cls.addClassCleanup(cls.stop_daemon)
        deadline = time.monotonic() + 20
        while not os.path.exists(os.path.join(cls.dir, "publish.sock")):
            if cls.daemon.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"locus run did not start: {cls.daemon_log()[-2000:]}")
            time.sleep(0.02)

    @classmethod
    def stop_daemon(cls):
        cls.daemon.send_signal(signal.SIGTERM)
        try:
            cls.daemon.wait(10)
        except subprocess.TimeoutExpired:
            cls.daemon.kill()
            cls.daemon.wait()

    @classmethod
    def daemon_log(cls):
        cls.log.seek(0)
        return cls.log.read().decode(errors="replace")

    def setUp(self):
        # Keys from the caller's environment must not leak into the clients without keys.
        patcher = mock.patch.dict(os.environ, NO_KEYS)
        patcher.start()
        self.addCleanup(patcher.stop)

    def subscriber(self, endpoint, prefixes=("",), **keys):
        sub = Subscriber(prefixes, endpoint=endpoint, **keys)
        self.addCleanup(sub.close)
        return sub

    def test_only_an_authorized_key_receives(self):
        subs = {
            "alice": self.subscriber(self.tcp["publish"], server_key=self.server_key, key=self.alice),
            "eve": self.subscriber(self.tcp["publish"], server_key=self.server_key, key=self.eve),
            "plain": self.subscriber(self.tcp["publish"]),
        }
        with mock.patch.dict(os.environ, {"LOCUS_SERVER_KEY": self.server_key, "LOCUS_CLIENT_KEY": self.alice}):
            subs["alice_from_env"] = self.subscriber(self.tcp["publish"])
        poller = zmq.Poller()
        for sub in subs.values():
            poller.register(sub.socket, zmq.POLLIN)
        start = time.monotonic()
        # Until both of alice's have 5 messages, and for 2 s at least, so that a refused key
        # had time to get something if it could.
        while time.monotonic() < start + 10:
            ready = dict(poller.poll(100))
            for sub in subs.values():
                if sub.socket in ready:
                    sub.receive(timeout=0)
            if time.monotonic() > start + 2 and min(subs["alice"].received, subs["alice_from_env"].received) >= 5:
                break
        received = {name: sub.received for name, sub in subs.items()}
        self.assertGreaterEqual(received["alice"], 5, received)
        self.assertGreaterEqual(received["alice_from_env"], 5, received)
        self.assertEqual((received["eve"], received["plain"]), (0, 0), received)
        eve_public, _ = zmq.auth.load_certificate(self.eve)
        self.assertIn(eve_public.decode(), self.daemon_log())  # refused, and logged with her key

    def test_an_authorized_publisher_reaches_ipc_subscribers_and_an_unknown_one_is_refused(self):
        sub = self.subscriber(self.ipc["publish"], ["obs.fix.alice"])
        pub = Publisher("alice", endpoint=self.tcp["ingest"], server_key=self.server_key, key=self.alice, timeout=10)
        self.addCleanup(pub.close)
        t = int(time.time())
        deadline = time.monotonic() + 10
        while sub.receive(timeout=0.05) is None:  # probes until the subscription has reached the hub
            self.assertLess(time.monotonic(), deadline, f"the ipc subscriber never received alice's fixes: "
                                                        f"{self.daemon_log()[-1500:]}")
            pub.fix(lat=45.0, lon=14.0, time=t)
            t += 1
        while sub.receive(timeout=0.2) is not None:
            pass
        sent = [pub.fix(lat=45.0 + i * 0.001, lon=14.0, time=t + i) for i in range(10)]
        got = [sub.receive(timeout=5) for _ in sent]
        self.assertNotIn(None, got)
        self.assertEqual([(m.producer, m.seq) for m in got], [("alice", seq) for seq in sent])
        # The hub vouches for the sender: the name of the key it connected with (protocol 4.1).
        self.assertEqual({m.via for m in got}, {"alice"})
        with self.assertRaisesRegex(PublisherError, "authorized_keys"):
            Publisher("eve", endpoint=self.tcp["ingest"], server_key=self.server_key, key=self.eve, timeout=1.5)

    def test_a_durable_subscriber_catches_up_over_curve(self):
        # The standard service's location.updates are journaled; wait for some to be.
        probe = self.subscriber(self.ipc["publish"], ["location.update."])
        self.assertIsNotNone(probe.receive(timeout=10), "no location.update on the bus")
        sub = DurableSubscriber(["location.update."], since="all", endpoint=self.tcp["publish"],
                                catchup_endpoint=self.tcp["catchup"], server_key=self.server_key, key=self.alice,
                                timeout=5)
        self.addCleanup(sub.close)
        first = sub.receive(timeout=10)
        self.assertIsNotNone(first)
        self.assertEqual(first.topic, "location.update.here")
        self.assertGreaterEqual(sub.caught_up, 1)


if __name__ == "__main__":
    unittest.main()

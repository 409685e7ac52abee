#!/usr/bin/env python3
"""Checks the C subscriber's CURVE options against a real `locus run`, for a test to call:

    curve_check.py SUBSCRIBER [--locus BINARY]

Makes keys with `locus keygen` (server, alice authorized, eve not), starts `locus run` with a
CURVE tcp publish endpoint on a free loopback port and a looping replay, then runs SUBSCRIBER
(built by `make -C examples/c`): with -k/-K, with a Z85 server key from the environment, with
eve's key, without keys, and with keys it must refuse. Prints what failed; exit status 0 when
nothing did, 1 otherwise. About 3 s. The locus binary: --locus, else $LOCUS_BINARY, else a
build in this checkout (.build/debug, .build/release, then `make release`'s
.build-release/release), else `locus` on PATH (the Debian package's).
"""

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
WALK = os.path.join(REPO, "Tests", "EndToEndTests", "Fixtures", "walk-short.jsonl")

CONFIG = """
hub:
  publish:
    - ipc://{dir}/publish.sock
    - endpoint: tcp://127.0.0.1:{port}
      curve: {{secret_key_file: keys/server.key_secret, authorized_keys: clients}}
log:
  level: warning
sources:
  - {{type: replay, id: walk, file: "{walk}", speed: 100, loop: true}}
"""


def find_locus(environ, repo=REPO):
    """The locus binary to check against without --locus, or None (see the docstring above)."""
    if environ.get("LOCUS_BINARY"):
        return environ["LOCUS_BINARY"]
    for build in ((".build", "debug"), (".build", "release"), (".build-release", "release")):
        path = os.path.join(repo, *build, "locus")
        if os.access(path, os.X_OK):
            return path
    return shutil.which("locus", path=environ.get("PATH", os.defpath))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def public_key(path):
    """The Z85 public key of a certificate (its `public-key = "..."` line)."""
    with open(path) as f:
        return next(line.split('"')[1] for line in f if line.strip().startswith("public-key"))


def run_checks(subscriber, locus, directory):
    failures = []
    keys = os.path.join(directory, "keys")
    for name in ("server", "alice", "eve"):
        subprocess.run([locus, "keygen", name, "-d", keys], check=True, capture_output=True, timeout=30)
    os.mkdir(os.path.join(directory, "clients"))
    shutil.copy(os.path.join(keys, "alice.key"), os.path.join(directory, "clients"))
    port = free_port()
    config = os.path.join(directory, "config.yaml")
    with open(config, "w") as f:
        f.write(CONFIG.format(dir=directory, port=port, walk=WALK))
    env = dict(os.environ, LOCUS_RUNTIME_DIR=directory, LOCUS_STATE_DIR=directory, LOCUS_SERVER_KEY="", LOCUS_CLIENT_KEY="")
    with open(os.path.join(directory, "locus.log"), "w+b") as log:
        daemon = subprocess.Popen([locus, "run", config], env=env, stdout=subprocess.DEVNULL, stderr=log)
        try:
            deadline = time.monotonic() + 20
            while not os.path.exists(os.path.join(directory, "publish.sock")):
                if daemon.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    return [f"locus run did not start: {log.read().decode(errors='replace')[-2000:]}"]
                time.sleep(0.02)
            endpoint = f"tcp://127.0.0.1:{port}"
            server, alice, eve = (os.path.join(keys, n) for n in ("server.key", "alice.key_secret", "eve.key_secret"))
            # Together, so that the refused ones listen while alice's receive. -t: exit after
            # that many milliseconds without a message.
            runs = {
                "alice": ([subscriber, "-e", endpoint, "-k", server, "-K", alice, "-n", "5", "-t", "10000"], {}),
                "alice from the environment": ([subscriber, "-e", endpoint, "-n", "5", "-t", "10000"],
                                               {"LOCUS_SERVER_KEY": public_key(server), "LOCUS_CLIENT_KEY": alice}),
                "eve": ([subscriber, "-e", endpoint, "-k", server, "-K", eve, "-t", "2000"], {}),
                "no keys": ([subscriber, "-e", endpoint, "-t", "2000"], {}),
            }
            procs = {name: subprocess.Popen(argv, env=dict(env, **extra), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                            text=True) for name, (argv, extra) in runs.items()}
            results = {name: (p.communicate(timeout=30), p.returncode) for name, p in procs.items()}
            for name in ("alice", "alice from the environment"):
                (out, err), code = results[name]
                if code != 0 or len(out.splitlines()) != 5:
                    failures.append(f"{name}: exit {code}, {len(out.splitlines())} lines, expected 5: {err.strip()}")
            for name in ("eve", "no keys"):
                (out, err), code = results[name]
                if code != 0 or out:
                    failures.append(f"{name}: exit {code}, {len(out.splitlines())} lines, expected none: {err.strip()}")
            refused = {
                "a NAME.key for -K": ([subscriber, "-e", endpoint, "-k", server, "-K", os.path.join(keys, "alice.key")],
                                      "not NAME.key"),
                "-k without -K": ([subscriber, "-e", endpoint, "-k", server], "both keys"),
                "a missing server key": ([subscriber, "-e", endpoint, "-k", server + ".nope", "-K", alice], "server key"),
            }
            for name, (argv, expected) in refused.items():
                r = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=10)
                if r.returncode != 2 or expected not in r.stderr:
                    failures.append(f"{name}: exit {r.returncode}, expected 2 and {expected!r} in: {r.stderr.strip()}")
        finally:
            daemon.send_signal(signal.SIGTERM)
            try:
                daemon.wait(10)
            except subprocess.TimeoutExpired:
                daemon.kill()
                daemon.wait()
    return failures


def main():
    parser = argparse.ArgumentParser(description="Check the C subscriber's CURVE options against locus run.")
    parser.add_argument("subscriber", help="the C subscriber binary (make -C examples/c)")
    parser.add_argument("--locus", help="the locus binary (default: $LOCUS_BINARY, else this checkout's "
                                         ".build/debug, .build/release or .build-release/release, else locus on PATH)")
    args = parser.parse_args()
    if args.locus is None:
        args.locus = find_locus(os.environ)
        if args.locus is None:
            parser.error("no locus binary: none built in this checkout (swift build) and none on PATH; name one with --locus")
        print(f"locus: {args.locus}", file=sys.stderr)
    for path in (args.subscriber, args.locus):
        if not os.access(path, os.X_OK):
            parser.error(f"{path} is not an executable")
    directory = tempfile.mkdtemp(prefix="locus-c-curve-")
    try:
        failures = run_checks(os.path.abspath(args.subscriber), args.locus, directory)
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    for failure in failures:
        print(f"FAIL {failure}", file=sys.stderr)
    print("C subscriber CURVE checks:", "failed" if failures else "passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

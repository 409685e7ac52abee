#!/usr/bin/env python3
"""Plays every file under a directory as a `replay` source of a real `locus run`, one daemon per
file, and reports what became of each: played to the end, stopped with a status (failed, with
its reason), refused by the config check (exit 2, with the message), or a crash / hang.

usage: tools/replay_sweep.py LOCUS_BINARY DIRECTORY [--timeout SECONDS]

Not part of CI (the data sits in ../shared); issue 12 asks that no file can take the daemon down.
Exit status 1 if any file crashed the daemon, hung it, or left it unable to answer `ctl status`.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

binary, root = sys.argv[1], sys.argv[2]
timeout = float(sys.argv[sys.argv.index("--timeout") + 1]) if "--timeout" in sys.argv else 60.0


def ctl_status(env):
    r = subprocess.run([binary, "ctl", "status", "--json", "--timeout", "2"], env=env, capture_output=True, text=True)
    if r.returncode != 0:
        return None
    return json.loads(r.stdout)["result"]


def sweep_one(path):
    with tempfile.TemporaryDirectory(prefix="locus-sweep-", dir="/tmp") as d:
        env = dict(os.environ, LOCUS_RUNTIME_DIR=d, LOCUS_STATE_DIR=d)
        config = os.path.join(d, "config.yaml")
        with open(config, "w") as f:
            f.write("sources:\n  - type: replay\n    id: sweep\n    file: %s\n    speed: max\n" % json.dumps(path))
            f.write("sinks:\n  - type: file\n    id: out\n    path: %s\n" % json.dumps(os.path.join(d, "events.jsonl")))
        err = open(os.path.join(d, "stderr"), "w+")
        p = subprocess.Popen([binary, "run", config], env=env, stdout=subprocess.DEVNULL, stderr=err)
        deadline = time.time() + timeout
        outcome, detail = "hang", ""
        while time.time() < deadline:
            code = p.poll()
            if code is not None:
                err.seek(0)
                text = err.read().strip().splitlines()
                outcome = "refused" if code == 2 else "crash"
                detail = "exit %d: %s" % (code, text[-1] if text else "")
                break
            status = ctl_status(env) if os.path.exists(os.path.join(d, "control.sock")) else None
            plugin = next((x for x in (status or {}).get("plugins", []) if x["plugin"] == "sweep"), None)
            if plugin and plugin["state"] == "stopped":
                outcome, detail = "played", plugin.get("reason", "")
                break
            if plugin and plugin["state"] == "failed":
                outcome, detail = "stopped", plugin.get("reason", "")
                break
            time.sleep(0.2)
        if p.poll() is None:
            # The hub must still be serving while the source is over.
            if outcome in ("played", "stopped") and ctl_status(env) is None:
                outcome, detail = "unresponsive", detail
            p.terminate()
            try:
                code = p.wait(timeout=15)
                if code != 0 and outcome in ("played", "stopped"):
                    outcome, detail = "crash", "exit %d at shutdown" % code
            except subprocess.TimeoutExpired:
                p.kill()
                outcome = "hang"
        return outcome, detail


counts = {}
bad = []
files = sorted(os.path.join(dp, f) for dp, _, fs in os.walk(root) for f in fs)
for path in files:
    outcome, detail = sweep_one(path)
    counts[outcome] = counts.get(outcome, 0) + 1
    print("%-12s %s  %s" % (outcome, os.path.relpath(path, root), detail[:160]), flush=True)
    if outcome in ("crash", "hang", "unresponsive"):
        bad.append(path)
print("%d files: %s" % (len(files), ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
sys.exit(1 if bad else 0)

#!/usr/bin/env python3
"""An exec plugin for the shutdown tests: records its pid and signal state, then waits.

usage: exec_child.py NAME MARKDIR (stop SECONDS | ignore)
On start it writes MARKDIR/NAME.started: its pid and the SigBlk/SigIgn lines of
/proc/self/status. With `stop SECONDS`, SIGTERM writes MARKDIR/NAME.term, sleeps SECONDS,
writes MARKDIR/NAME.done and exits 0. With `ignore`, SIGTERM is ignored (SIGKILL ends it).
"""
import os
import signal
import sys
import time

name, markdir, mode = sys.argv[1], sys.argv[2], sys.argv[3]


def mark(suffix, text=""):
    with open(os.path.join(markdir, name + suffix), "w") as f:
        f.write(text)


def on_term(*_):
    mark(".term")
    time.sleep(float(sys.argv[4]))
    mark(".done")
    sys.exit(0)


if mode == "stop":
    signal.signal(signal.SIGTERM, on_term)
else:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
with open("/proc/self/status") as f:
    status = [line.strip() for line in f if line.startswith(("SigBlk", "SigIgn"))]
mark(".started", "%d\n%s\n" % (os.getpid(), "\n".join(status)))
while True:
    time.sleep(0.05)

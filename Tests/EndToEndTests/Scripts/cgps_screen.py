"""cgps (Debian gpsd-clients) in a detached tmux session against HOST:PORT; prints its screen
once it shows every WANTED text (or after TIMEOUT seconds), then ends the session.

usage: cgps_screen.py HOST:PORT TIMEOUT WANTED...
"""
import os
import signal
import subprocess
import sys
import time

# The test runner's threads block signals that tmux's client and server rely on.
signal.pthread_sigmask(signal.SIG_SETMASK, [])
server, timeout, wanted = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
name = "locus-cgps-%d" % os.getpid()
tmux = ["tmux", "-L", name]
env = dict(os.environ, TERM="xterm")
subprocess.run(tmux + ["new-session", "-d", "-s", name, "-x", "100", "-y", "40", "cgps " + server],
               check=True, env=env, timeout=10)
screen = ""
deadline = time.time() + timeout
try:
    while time.time() < deadline:
        screen = subprocess.run(tmux + ["capture-pane", "-p", "-t", name], capture_output=True,
                                text=True, env=env, timeout=10).stdout
        if all(w in screen for w in wanted):
            break
        time.sleep(0.2)
finally:
    subprocess.run(tmux + ["kill-server"], env=env, timeout=10)
sys.stdout.write(screen)

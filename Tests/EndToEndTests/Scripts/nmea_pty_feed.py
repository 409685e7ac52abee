"""A virtual serial GPS: socat (Debian package socat) joins two pseudo-terminals, DIR/gps (the
receiver's side, for an nmea-serial source) and DIR/feed; this writes LOG's sentences to feed,
one every INTERVAL seconds, CR LF-ended, from the start again at the end, until SIGTERM.

usage: nmea_pty_feed.py DIR LOG INTERVAL
"""
import os
import signal
import subprocess
import sys
import time

signal.pthread_sigmask(signal.SIG_SETMASK, [])
directory, log, interval = sys.argv[1], sys.argv[2], float(sys.argv[3])
gps, feed = os.path.join(directory, "gps"), os.path.join(directory, "feed")
socat = subprocess.Popen(["socat", "pty,raw,echo=0,link=" + gps, "pty,raw,echo=0,link=" + feed],
                         stderr=subprocess.DEVNULL)


def stop(*_):
    socat.terminate()
    socat.wait(timeout=5)
    sys.exit(0)


signal.signal(signal.SIGTERM, stop)
deadline = time.time() + 10
while not (os.path.exists(gps) and os.path.exists(feed)) and time.time() < deadline:
    time.sleep(0.02)
sentences = [l.strip() for l in open(log, encoding="ascii") if l.startswith("$")]
out = os.open(feed, os.O_WRONLY | os.O_NOCTTY)
print("feeding", flush=True)
while True:
    for s in sentences:
        os.write(out, (s + "\r\n").encode("ascii"))
        time.sleep(interval)

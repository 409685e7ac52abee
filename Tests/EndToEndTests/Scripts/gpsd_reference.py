"""Real gpsd's reports for an NMEA log: gpsfake (Debian gpsd-clients) plays LOG to its own gpsd
on PORT once, and gpspipe -w prints what gpsd reports, until a report has time LAST (the log's
last epoch) or nothing came for 10 s. Then gpsfake and its gpsd are stopped.

usage: gpsd_reference.py LOG PORT LAST   (gpspipe's lines on standard output)
"""
import os
import select
import signal
import socket
import subprocess
import sys
import time

# The test runner's threads block SIGTERM; children would inherit that and not stop.
signal.pthread_sigmask(signal.SIG_SETMASK, [])
log, port, last = sys.argv[1], sys.argv[2], sys.argv[3]
fake = subprocess.Popen(["gpsfake", "-1", "-q", "-P", port, "-c", "0.05", log],
                        stdout=subprocess.DEVNULL, stderr=sys.stderr, start_new_session=True)
deadline = time.time() + 15
while time.time() < deadline:
    try:
        socket.create_connection(("127.0.0.1", int(port)), timeout=0.2).close()
        break
    except OSError:
        time.sleep(0.05)
pipe = subprocess.Popen(["gpspipe", "-w", "127.0.0.1:" + port], stdout=subprocess.PIPE)
buffered = b""
quiet_until = time.time() + 10
try:
    while time.time() < quiet_until:
        ready, _, _ = select.select([pipe.stdout], [], [], 0.5)
        if not ready:
            continue
        chunk = os.read(pipe.stdout.fileno(), 65536)
        if not chunk:
            break
        buffered += chunk
        sys.stdout.write(chunk.decode("utf-8", "replace"))
        quiet_until = time.time() + 10
        if ('"time":"%s"' % last).encode() in buffered and buffered.endswith(b"\n"):
            break
finally:
    pipe.kill()
    os.killpg(fake.pid, signal.SIGKILL)
    fake.wait(timeout=10)

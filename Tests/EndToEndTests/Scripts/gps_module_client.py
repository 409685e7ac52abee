"""A client of Python's gps module (Debian python3-gps), as gpsd's users write one: watch,
read reports until COUNT TPVs came, print each TPV's fields and then the session's view.

usage: gps_module_client.py HOST PORT COUNT
"""
import json
import signal
import sys

import gps

signal.pthread_sigmask(signal.SIG_SETMASK, [])
host, port, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
session = gps.gps(host=host, port=port, mode=gps.WATCH_ENABLE | gps.WATCH_JSON)
tpvs = 0
skies = 0
for report in session:
    kind = report["class"]
    if kind == "SKY":
        skies += 1
    if kind != "TPV":
        continue
    print(json.dumps({"class": "TPV", "device": report.get("device"), "mode": report.get("mode"),
                      "time": report.get("time"), "lat": report.get("lat"), "lon": report.get("lon"),
                      "altMSL": report.get("altMSL"), "speed": report.get("speed")}), flush=True)
    tpvs += 1
    if tpvs >= count and skies > 0:
        break
print(json.dumps({"class": "SESSION", "lat": session.fix.latitude, "lon": session.fix.longitude,
                  "mode": session.fix.mode, "satellites": len(session.satellites),
                  "used": session.satellites_used, "version": getattr(session, "version", None) is not None}), flush=True)

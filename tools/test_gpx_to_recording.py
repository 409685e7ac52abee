#!/usr/bin/env python3
"""Tests for gpx_to_recording.py: Locus number and time formatting, and the conversion rules.

    /usr/bin/python3 tools/test_gpx_to_recording.py
"""

import importlib.util
import io
import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent


def load(name):
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


g = load("gpx_to_recording")
vm = load("validate_messages")

GPX = """<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
  <trk><trkseg>
    <trkpt lat="0.0001" lon="0.0002"><ele>10.25</ele><time>2024-05-17T08:00:00Z</time>
      <sat>7</sat><hdop>1.30</hdop><vdop>2</vdop></trkpt>
    <trkpt lat="0.0002" lon="0.0002"><ele>10.5</ele><time>2024-05-17T10:00:10.1239+02:00</time></trkpt>
    <trkpt lat="0.0003" lon="0.0002"><ele>11</ele></trkpt>
    <trkpt lat="0.0002" lon="0.0002"><time>2024-05-17T08:00:20Z</time></trkpt>
    <trkpt lat="0.0002" lon="0.0002"><time>2024-05-17T08:00:25Z</time><fix>none</fix></trkpt>
  </trkseg><trkseg>
    <trkpt lat="-0.0001" lon="-0.0001"><time>2024-05-17T08:10:00Z</time><fix>dgps</fix></trkpt>
  </trkseg></trk>
</gpx>
"""

FIXED = [
    (13.4, 3, "13.4"), (13.400000, 9, "13.4"), (542.320923, 3, "542.321"), (0.00003, 9, "0.00003"),
    (1e-9, 9, "0.000000001"), (-0.0001, 3, "0"), (0.1 + 0.2, 3, "0.3"), (2.5, 0, "3"), (-2.5, 0, "-3"),
    (0.125, 2, "0.13"), (100, 2, "100"), (-14.05, 2, "-14.05"), (45.772175035, 9, "45.772175035"),
]


def main():
    passed, failures = 0, []

    def check(name, ok, detail=""):
        nonlocal passed
        if ok:
            passed += 1
        else:
            failures.append(f"{name}: {detail}")

    for value, digits, want in FIXED:
        got = g.fixed(value, digits)
        check(f"fixed({value!r}, {digits})", got == want, f"got {got!r}, want {want!r}")

    check("iso_ms epoch", g.iso_ms(0) == "1970-01-01T00:00:00.000Z", g.iso_ms(0))
    check("iso_ms before epoch", g.iso_ms(-1) == "1969-12-31T23:59:59.999Z", g.iso_ms(-1))
    check("parse_time Z", g.parse_time("2024-05-17T08:00:00.100Z") == 1_715_932_800_100)
    check("parse_time offset, truncates", g.parse_time("2024-05-17T10:00:00.1239+02:00") == 1_715_932_800_123)
    check("parse_time rejects junk", g.parse_time("yesterday") is None)

    out, log = io.StringIO(), io.StringIO()
    n = g.convert(io.BytesIO(GPX.encode()), "gps9", 5, out, log=log)
    lines = out.getvalue().splitlines()
    envs = [json.loads(x)["envelope"] for x in lines]
    pays = [e["payload"] for e in envs]
    check("untimed and fix-none points skipped", n == 4 and len(lines) == 4, f"{n} {log.getvalue()!r}")
    check("exact first line", lines[0] ==
          '{"topic":"obs.fix.gps9","envelope":{"type":"obs.fix","version":1,"producer":"gps9","seq":1,'
          '"time":"2024-05-17T08:00:00.000Z","payload":{"source":"gps9","mode":"3d","lat":0.0001,'
          '"lon":0.0002,"alt_msl":10.25,"satellites_used":7,"hdop":1.3,"vdop":2,"h_accuracy":5}}}', lines[0])
    check("seq counts from 1", [e["seq"] for e in envs] == [1, 2, 3, 4], [e["seq"] for e in envs])
    check("time offset converted to UTC, truncated to ms", envs[1]["time"] == "2024-05-17T08:00:10.123Z",
          envs[1]["time"])
    # 0.0001 degree of latitude at the equator is 11.057 m on WGS-84, covered in 10.123 s, due north.
    check("speed from the previous point", pays[1].get("speed") == 1.092, pays[1])
    check("course from the previous point", pays[1].get("course") == 0, pays[1])
    check("no elevation means 2d", pays[2]["mode"] == "2d" and "alt_msl" not in pays[2], pays[2])
    check("speed across a skipped point", pays[2].get("speed") == 0 and "course" not in pays[2], pays[2])
    check("new segment has no speed or course", "speed" not in pays[3] and "course" not in pays[3], pays[3])
    check("gpx dgps fix", pays[3]["mode"] == "3d" and pays[3].get("quality") == "dgps", pays[3])
    check("optional fields only when present", "hdop" not in pays[1] and "satellites_used" not in pays[1], pays[1])

    problems = [p for x in lines for p in vm.MessageValidator([vm.DEFAULT_SCHEMAS]).check_line(x)]
    check("converted lines validate", problems == [], problems)

    out = io.StringIO()
    g.convert(io.BytesIO(GPX.encode()), "gps9", None, out, log=io.StringIO())
    check("no --assume-accuracy, no h_accuracy", "h_accuracy" not in out.getvalue())

    # Travelling at 359.996 degrees would print as 360 with two decimals; it must wrap to 0.
    here = ET.fromstring('<trkpt lat="0" lon="0"/>')
    p = dict(g.fix_payload("x", here, 1000, (0, -0.0001, 0.000000007), None))
    check("course never written as 360", p.get("course") == "0", p)

    for f in failures:
        print("FAIL", f)
    print(f"{passed} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

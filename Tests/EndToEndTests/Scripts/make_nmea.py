#!/usr/bin/env python3
"""Writes an NMEA log of a vehicle driving laps of a 2 km square at 10 m/s, 1 Hz, with a
5-minute stop at one corner per lap: per epoch a GGA and an RMC with valid checksums.
Enough fixes to outrun any buffer when replayed at full speed (ReplayBackPressureTests).

usage: make_nmea.py EPOCHS FILE
"""
import math
import sys
from datetime import datetime, timedelta, timezone

LAT0, LON0 = 46.0, 14.5          # the square's south-west corner
SIDE = 2000.0                    # metres
SPEED = 10.0                     # metres per second
STOP = 300                       # seconds parked at the north-east corner each lap
M_PER_DEG_LAT = 111_132.0
M_PER_DEG_LON = 111_320.0 * math.cos(math.radians(LAT0))


def sentence(body):
    c = 0
    for ch in body.encode("ascii"):
        c ^= ch
    return "$%s*%02X\r\n" % (body, c)


def dm(value, degrees_width):
    v = abs(value)
    d = int(v)
    return "%0*d%07.4f" % (degrees_width, d, (v - d) * 60)


def position(t):
    """(east, north) metres from the corner and whether moving, `t` seconds into the log."""
    lap = 4 * SIDE / SPEED + STOP
    s = t % lap
    drive = 4 * SIDE / SPEED
    if s >= 2 * SIDE / SPEED and s < 2 * SIDE / SPEED + STOP:
        return SIDE, SIDE, False
    if s >= 2 * SIDE / SPEED + STOP:
        s -= STOP
    d = s * SPEED
    if d < SIDE:
        return d, 0.0, True
    if d < 2 * SIDE:
        return SIDE, d - SIDE, True
    if d < 3 * SIDE:
        return 3 * SIDE - d, SIDE, True
    return 0.0, 4 * SIDE - d, True


def main():
    epochs, path = int(sys.argv[1]), sys.argv[2]
    start = datetime(2025, 3, 1, 8, 0, 0, tzinfo=timezone.utc)
    with open(path, "w", newline="") as f:
        for i in range(epochs):
            t = start + timedelta(seconds=i)
            east, north, moving = position(i)
            lat = LAT0 + north / M_PER_DEG_LAT
            lon = LON0 + east / M_PER_DEG_LON
            hms = t.strftime("%H%M%S") + ".00"
            la, lo = dm(lat, 2), dm(lon, 3)
            f.write(sentence("GPGGA,%s,%s,N,%s,E,1,09,0.9,300.0,M,47.0,M,," % (hms, la, lo)))
            knots = SPEED / 0.514444 if moving else 0.0
            f.write(sentence("GPRMC,%s,A,%s,N,%s,E,%.1f,0.0,%s,,,A" % (hms, la, lo, knots, t.strftime("%d%m%y"))))


if __name__ == "__main__":
    main()

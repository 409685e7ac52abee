#!/usr/bin/env python3
"""Convert a GPX track into a Locus recording of obs.fix messages.

    gpx_to_recording.py [--source ID] [--assume-accuracy M] [-o OUT] FILE.gpx

Writes one recording line per timed track point, exactly as `locus record` would:
`{"topic":"obs.fix.<ID>","envelope":{"type":"obs.fix","version":1,"producer":"<ID>",
"seq":N,"time":"…Z","payload":{…}}}`, with Locus's number formatting (fixed point, the
field's number of fraction digits, trailing zeros trimmed) and key order.

What each payload field comes from:
- lat, lon: the point (at most 9 fraction digits, as Locus writes them);
- alt_msl: <ele>. GPX does not say which vertical datum <ele> uses; receivers that write
  GPX (Garmin, GPSBabel) give height above mean sea level, so it goes to alt_msl;
- mode: 3d with <ele>, 2d without; a GPX <fix> of 2d/3d/dgps/pps overrides it (dgps and
  pps also set quality); points with <fix>none</fix> are skipped;
- speed, course: from the previous timed point of the same track segment, along the
  WGS-84 ellipsoid (Vincenty's inverse formula, sub-millimetre for these distances). Speed
  is the average over that interval; course is the direction of travel on arrival at this
  point, omitted when the point did not move. The first point of a segment has neither:
  segments are separated by logging gaps, and an average across a gap would be invented;
- hdop, vdop, pdop, satellites_used: <hdop>, <vdop>, <pdop>, <sat> when present;
- h_accuracy: GPX has no accuracy field, so none is written unless --assume-accuracy M
  is given, which writes h_accuracy M on every point (an assumption, not a measurement).

Points without <time> are skipped. Times are read as UTC (GPX requires it; offsets are
converted) and truncated to milliseconds, as Locus does.
"""

import argparse
import calendar
import json
import math
import os
import re
import sys
import time
import xml.etree.ElementTree as ET

TOPIC_SEGMENT = re.compile(r"[a-z0-9_-]{1,64}")
GPX_TIME = re.compile(
    r"\s*(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:?\d{2})?\s*")


# --- Locus wire formatting (Sources/LocusCore/Wire/JSONWriter.swift) -------------------------

def rounded_away(x):
    """Swift's Double.rounded(): to nearest, ties away from zero (Python's round() ties to even).

    x - floor(x) is exact for the magnitudes used here, so this is exact too.
    """
    f = math.floor(x)
    return f + 1 if x - f >= 0.5 else f


def fixed(value, digits):
    """A number as JSONWriter.appendFixed writes it: `digits` fraction digits, zeros trimmed.

    13.4 -> "13.4", 542.320923 (3 digits) -> "542.321", -0.0001 (3 digits) -> "0".
    """
    if not math.isfinite(value):
        raise ValueError("Locus omits non-finite numbers; do not write them")
    scale = 10 ** digits
    units = int(rounded_away(abs(value) * float(scale)))
    if units >= 9 * 10 ** 15:
        raise ValueError(f"{value} is too large for fixed point with {digits} digits")
    sign = "-" if value < 0 and units else ""
    whole, frac = divmod(units, scale)
    if frac == 0:
        return f"{sign}{whole}"
    return f"{sign}{whole}.{str(frac).rjust(digits, '0').rstrip('0')}"


def iso_ms(ms):
    """Event time as Locus writes it: YYYY-MM-DDTHH:MM:SS.mmmZ."""
    seconds, millis = divmod(ms, 1000)
    y, mo, d, h, mi, s = time.gmtime(seconds)[:6]
    return f"{y:04d}-{mo:02d}-{d:02d}T{h:02d}:{mi:02d}:{s:02d}.{millis:03d}Z"


def parse_time(text):
    """GPX <time> (xsd:dateTime) to UTC milliseconds, fraction truncated like EventTime."""
    m = GPX_TIME.fullmatch(text or "")
    if not m:
        return None
    y, mo, d, h, mi, s = (int(g) for g in m.groups()[:6])
    frac, zone = m.group(7) or "", m.group(8) or "Z"
    try:
        seconds = calendar.timegm((y, mo, d, h, mi, s, 0, 0, 0))
    except (ValueError, OverflowError):
        return None
    if zone != "Z":
        sign = -1 if zone[0] == "-" else 1
        zone = zone[1:].replace(":", "")
        seconds -= sign * (int(zone[:2]) * 3600 + int(zone[2:]) * 60)
    return seconds * 1000 + int((frac + "000")[:3])


# --- geodesy ---------------------------------------------------------------------------------

WGS84_A = 6378137.0
WGS84_F = 1 / 298.257223563
WGS84_B = WGS84_A * (1 - WGS84_F)


def inverse(lat1, lon1, lat2, lon2):
    """Distance (m) and azimuth at the second point (degrees) on the WGS-84 ellipsoid.

    Vincenty (1975) inverse formula. It fails to converge only for nearly antipodal points,
    which consecutive track points never are; then a spherical estimate is returned.
    """
    if lat1 == lat2 and lon1 == lon2:
        return 0.0, None
    f = WGS84_F
    L = math.radians(lon2 - lon1)
    U1 = math.atan((1 - f) * math.tan(math.radians(lat1)))
    U2 = math.atan((1 - f) * math.tan(math.radians(lat2)))
    sinU1, cosU1, sinU2, cosU2 = math.sin(U1), math.cos(U1), math.sin(U2), math.cos(U2)
    lam = L
    for _ in range(200):
        sin_lam, cos_lam = math.sin(lam), math.cos(lam)
        sin_sigma = math.hypot(cosU2 * sin_lam, cosU1 * sinU2 - sinU1 * cosU2 * cos_lam)
        if sin_sigma == 0:
            return 0.0, None
        cos_sigma = sinU1 * sinU2 + cosU1 * cosU2 * cos_lam
        sigma = math.atan2(sin_sigma, cos_sigma)
        sin_alpha = cosU1 * cosU2 * sin_lam / sin_sigma
        cos2_alpha = 1 - sin_alpha ** 2
        cos_2sm = cos_sigma - 2 * sinU1 * sinU2 / cos2_alpha if cos2_alpha else 0.0
        C = f / 16 * cos2_alpha * (4 + f * (4 - 3 * cos2_alpha))
        lam_prev = lam
        lam = L + (1 - C) * f * sin_alpha * (
            sigma + C * sin_sigma * (cos_2sm + C * cos_sigma * (-1 + 2 * cos_2sm ** 2)))
        if abs(lam - lam_prev) < 1e-12:
            break
    else:
        return spherical(lat1, lon1, lat2, lon2)
    u2 = cos2_alpha * (WGS84_A ** 2 - WGS84_B ** 2) / WGS84_B ** 2
    A = 1 + u2 / 16384 * (4096 + u2 * (-768 + u2 * (320 - 175 * u2)))
    B = u2 / 1024 * (256 + u2 * (-128 + u2 * (74 - 47 * u2)))
    d_sigma = B * sin_sigma * (cos_2sm + B / 4 * (
        cos_sigma * (-1 + 2 * cos_2sm ** 2)
        - B / 6 * cos_2sm * (-3 + 4 * sin_sigma ** 2) * (-3 + 4 * cos_2sm ** 2)))
    distance = WGS84_B * A * (sigma - d_sigma)
    azimuth2 = math.degrees(math.atan2(cosU1 * math.sin(lam),
                                       -sinU1 * cosU2 + cosU1 * sinU2 * math.cos(lam)))
    return distance, azimuth2 % 360


def spherical(lat1, lon1, lat2, lon2):
    """Haversine distance on the mean-radius sphere and the final bearing."""
    p1, p2, dl = math.radians(lat1), math.radians(lat2), math.radians(lon2 - lon1)
    h = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    distance = 2 * 6371008.8 * math.asin(min(1.0, math.sqrt(h)))
    back = math.atan2(math.sin(-dl) * math.cos(p1),
                      math.cos(p2) * math.sin(p1) - math.sin(p2) * math.cos(p1) * math.cos(dl))
    return distance, (math.degrees(back) + 180) % 360


# --- GPX -------------------------------------------------------------------------------------

def local(tag):
    """Element name without its namespace: GPX 1.0 and 1.1 use different ones."""
    return tag.rsplit("}", 1)[-1]


def child_text(element, name):
    for c in element:
        if local(c.tag) == name:
            return (c.text or "").strip()
    return None


def child_number(element, name):
    text = child_text(element, name)
    try:
        value = float(text) if text else None
    except ValueError:
        return None
    return value if value is not None and math.isfinite(value) else None


def segments(root):
    """Track segments in file order, each a list of trkpt elements."""
    for trk in root.iter():
        if local(trk.tag) != "trk":
            continue
        for seg in trk:
            if local(seg.tag) == "trkseg":
                yield [p for p in seg if local(p.tag) == "trkpt"]


def fix_payload(source, point, ms, previous, assume_accuracy):
    """The obs.fix payload for one trkpt, as (key, JSON text) pairs in Fix.write's key order.

    `previous` is (ms, lat, lon) of the segment's previous timed point, or None.
    """
    lat, lon = float(point.get("lat")), float(point.get("lon"))
    ele = child_number(point, "ele")
    gpx_fix = child_text(point, "fix")
    mode = {"2d": "2d", "3d": "3d", "dgps": "3d", "pps": "3d"}.get(gpx_fix, "3d" if ele is not None else "2d")
    quality = {"dgps": "dgps", "pps": "pps"}.get(gpx_fix)

    speed = course = None
    if previous is not None and ms > previous[0]:
        distance, course = inverse(previous[1], previous[2], lat, lon)
        speed = distance / ((ms - previous[0]) / 1000)
        if course is not None and rounded_away(course * 100) >= 36000:
            course = 0.0  # 359.996 would be written as 360, outside 0 <= course < 360

    fields = [("source", json.dumps(source)), ("mode", json.dumps(mode)),
              ("lat", fixed(lat, 9)), ("lon", fixed(lon, 9))]
    optional = [("alt_msl", ele, 3), ("speed", speed, 3), ("course", course, 2)]
    fields += [(k, fixed(v, d)) for k, v, d in optional if v is not None]
    if quality:
        fields.append(("quality", json.dumps(quality)))
    sat = child_number(point, "sat")
    if sat is not None:
        fields.append(("satellites_used", str(int(sat))))
    for name in ("hdop", "vdop", "pdop"):
        value = child_number(point, name)
        if value is not None:
            fields.append((name, fixed(value, 2)))
    if assume_accuracy is not None:
        fields.append(("h_accuracy", fixed(assume_accuracy, 3)))
    return fields


def convert(gpx_file, source, assume_accuracy, out, log=sys.stderr):
    root = ET.parse(gpx_file).getroot()
    topic = f"obs.fix.{source}"
    seq = skipped_untimed = skipped_nofix = backwards = 0
    last_ms = None
    for seg in segments(root):
        previous = None
        for el in seg:
            ms = parse_time(child_text(el, "time"))
            if ms is None:
                skipped_untimed += 1
                continue
            if child_text(el, "fix") == "none":
                skipped_nofix += 1
                continue
            if last_ms is not None and ms < last_ms:
                backwards += 1
            last_ms = ms
            payload = fix_payload(source, el, ms, previous, assume_accuracy)
            seq += 1
            body = ",".join(f'"{k}":{v}' for k, v in payload)
            out.write(f'{{"topic":"{topic}","envelope":{{"type":"obs.fix","version":1,'
                      f'"producer":"{source}","seq":{seq},"time":"{iso_ms(ms)}",'
                      f'"payload":{{{body}}}}}}}\n')
            previous = (ms, float(el.get("lat")), float(el.get("lon")))
    print(f"gpx_to_recording: {seq} fixes written; skipped {skipped_untimed} points without time"
          f" and {skipped_nofix} with <fix>none</fix>", file=log)
    if backwards:
        print(f"gpx_to_recording: warning: time goes backwards {backwards} times; "
              "replays expect event time to be non-decreasing", file=log)
    return seq


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("gpx", help="GPX file (- for stdin)")
    parser.add_argument("--source", default="gps0",
                        help="source id: topic obs.fix.<ID>, producer and payload.source (default gps0)")
    parser.add_argument("--assume-accuracy", type=float, metavar="M",
                        help="write h_accuracy M (metres, 1-sigma) on every fix; GPX carries none")
    parser.add_argument("-o", "--output", default="-", help="output file (default stdout)")
    args = parser.parse_args(argv)
    if not TOPIC_SEGMENT.fullmatch(args.source):
        parser.error("--source must be 1-64 characters of [a-z0-9_-]")
    if args.assume_accuracy is not None and not (math.isfinite(args.assume_accuracy) and args.assume_accuracy >= 0):
        parser.error("--assume-accuracy must be a finite number >= 0")
    src = sys.stdin.buffer if args.gpx == "-" else args.gpx
    try:
        if args.output == "-":
            convert(src, args.source, args.assume_accuracy, sys.stdout)
        else:
            with open(args.output, "w", encoding="utf-8", newline="\n") as out:
                convert(src, args.source, args.assume_accuracy, out)
    except BrokenPipeError:
        # The reader went away (piped into head). Point stdout at /dev/null so that the
        # interpreter's final flush does not print a second traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (OSError, ET.ParseError) as e:
        print(f"gpx_to_recording: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

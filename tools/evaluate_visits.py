#!/usr/bin/env python3
"""Evaluate the visits service (Plugins/Visits) on the real tracks in ../shared/data/tracks.

    /usr/bin/python3 tools/evaluate_visits.py [--data DIR] [--locus PATH] [--keep DIR]

Prints Markdown tables (the figures of docs/visits-evaluation.md) on standard output.
Standard library only. Without the data directory it says so and exits 0, so it can run
from any checkout; without a built `locus` it runs `swift build --product locus` first.

What it does, per track:
1. `locus decode TRACK.gpx > input.jsonl` (for the i-Blue 747 CSV, gpsbabel's reference
   GPX conversion `iblue747~csv.gpx`, since `locus decode` reads GPX, not that CSV);
2. `locus replay input.jsonl --config C --tick-interval 300` with a config holding one visits
   service (C: the defaults, and min_stay 600); ticks every 300 s of recorded time are enough
   for max_gap (12 h) and keep replays of the 83-day DG-100 gap quick (with 1 s ticks that
   replay takes minutes);
3. pairs each visit.arrival with its visit.departure (the departure repeats the arrival);
   an arrival without departure is a visit still open when the track ends;
4. compares the visits with reference stays computed the way ../shared/data/tracks/README.md
   says its figures were: points within 100 m (haversine) of an anchor point for at least
   10 min, anchor moving on otherwise (Ye et al. 2009). With 10 min that reproduces every stay
   the README lists; the defaults (min_stay 300 s) are compared with the same method at 5 min,
   min_stay 600 with the README's 10 min. The method runs separately on the stretches between
   gaps in the fixes longer than 12 h (max_gap); the "stay" it finds across such a gap when
   run on everything (the DG-100 logger switched off for 83 days) is one that must NOT be
   found. The reference is a second stay detector, not ground truth: where the two disagree
   the tables show both, and docs/visits-evaluation.md discusses the cases.

Matching (tracks): a visit and a reference stay match when their intervals overlap; pairs are
made one to one, largest overlap first. Errors are visit minus reference, in minutes.

Google Takeout (2013_MAY.json, 2013_JUNE.json): the only timed raw positions in these files
are the points of `simplifiedRawPath` (in activitySegments and placeVisits) with their
`accuracyMeters`. `waypointPath` points carry no time, and the start/end locations and
durations of segments are Google's own inference, so neither is used. The points become one
recording (obs.fix.takeout, h_accuracy = accuracyMeters). A Locus visit matches a Google
placeVisit when the intervals overlap and the centres are within 200 m (the 100 m radius plus
twice the typical 30-50 m accuracy of the points). Precision counts every Locus visit; recall
counts the Google visits the raw points can show: at least two raw points within 200 m of the
visit's centre, inside its interval, at least min_stay (5 min) apart.
"""

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "tracks"
DEFAULT_LOCUS = ROOT / ".build" / "debug" / "locus"
TICK_INTERVAL = 300
MAX_GAP = 12 * 3600

# (name, file under the data directory, what it is)
TRACKS = [
    ("iblue747", "gpsbabel/iblue747~csv.gpx", "i-Blue 747 logger, drive with four stops, Leipzig, 2005-05-01"),
    ("dg100", "gpsbabel/dg100.gpx", "DG-100 logger, drives, overnight stay, 83-day logger gap, Ontario, 2020"),
    ("vincennes", "tracklib/20180131T121746.gpx", "TomTom watch run with one long stop, Bois de Vincennes, 2018-01-31"),
    ("cerknica", "gpxpy/cerknicko-jezero.gpx", "walk at Cerknica lake, SI, 2010-08-05"),
    ("korita", "gpxpy/korita-zbevnica.gpx", "hike in Ćićarija, HR, 2010-10-03"),
    ("petit-mont-blanc", "tracklib/456.gpx", "mountain hike, Vanoise, FR, 2017-09-08 (~1 fix/min)"),
]

# (label, visits options, minimum duration of the reference stays it is compared with, seconds)
TRACK_CONFIGS = [
    ("defaults", {}, 300),
    ("min_stay 600", {"min_stay": 600}, 600),
]

# The same comparison with one key changed at a time (reference stays of 5 min, as for the defaults).
SENSITIVITY = [
    ("defaults", {}, 300),
    ("radius 50", {"radius": 50}, 300),
    ("radius 150", {"radius": 150}, 300),
    ("departure_confirmation 0", {"departure_confirmation": 0}, 300),
    ("departure_confirmation 60", {"departure_confirmation": 60}, 300),
    ("departure_confirmation 300", {"departure_confirmation": 300}, 300),
    ("max_gap 3600", {"max_gap": 3600}, 300),
]

TAKEOUT_FILES = ["gpsbabel/googletakeout/2013/2013_MAY.json", "gpsbabel/googletakeout/2013/2013_JUNE.json"]
TAKEOUT_CONFIGS = [
    ("defaults", {}),
    # Google's raw points scatter 50-110 m around the place it reports (1-sigma 30-50 m).
    ("radius 150", {"radius": 150}),
]
TAKEOUT_MATCH_METRES = 200
TAKEOUT_MIN_STAY = 300


# --- small helpers ---------------------------------------------------------------------------

def parse_time(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def iso(seconds):
    t = datetime.fromtimestamp(seconds, tz=timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def short(seconds):
    return datetime.fromtimestamp(seconds, tz=timezone.utc).strftime("%m-%d %H:%M:%S")


def haversine(lat1, lon1, lat2, lon2):
    r = 6371000.0
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * r * math.asin(math.sqrt(min(1.0, h)))


def median(values):
    v = sorted(values)
    if not v:
        return None
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def minutes(x):
    return "–" if x is None else f"{x:+.1f}"


def fmt(x, digits=1):
    return "–" if x is None else f"{x:.{digits}f}"


# --- running locus ---------------------------------------------------------------------------

def ensure_locus(path):
    if path.exists():
        return path
    print(f"evaluate_visits.py: {path} not found; running swift build --product locus", file=sys.stderr)
    subprocess.run(["swift", "build", "--product", "locus"], cwd=ROOT, check=True)
    return path


def decode(locus, track, out):
    with open(out, "wb") as f:
        subprocess.run([str(locus), "decode", str(track)], stdout=f, stderr=subprocess.DEVNULL, check=True)


def read_fixes(recording):
    fixes = []
    with open(recording, encoding="utf-8") as f:
        for line in f:
            env = json.loads(line)["envelope"]
            p = env["payload"]
            if env["type"] == "obs.fix" and "lat" in p:
                fixes.append((parse_time(env["time"]), p["lat"], p["lon"]))
    return fixes


def config_yaml(options):
    lines = ["services:", "  - type: visits", "    id: visits"]
    lines += [f"    {k}: {v}" for k, v in options.items()]
    return "\n".join(lines) + "\n"


def replay(locus, recording, options, workdir):
    """The visits the service finds: dicts with arrival, departure (None if open), lat, lon, …"""
    config = Path(workdir) / "config.yaml"
    config.write_text(config_yaml(options), encoding="utf-8")
    result = subprocess.run([str(locus), "replay", str(recording), "--config", str(config),
                             "--tick-interval", str(TICK_INTERVAL)],
                            capture_output=True, text=True, check=True)
    visits, open_ = [], {}
    for line in result.stdout.splitlines():
        env = json.loads(line)["envelope"]
        p = env["payload"]
        key = (p["source"], p["arrival"])
        if env["type"] == "visit.arrival":
            open_[key] = dict(arrival=parse_time(p["arrival"]), departure=None, lat=p["lat"], lon=p["lon"],
                              h_accuracy=p["h_accuracy"], fixes=p["fixes"], detected=parse_time(env["time"]))
        elif env["type"] == "visit.departure":
            v = open_.pop(key)
            v["departure"] = parse_time(p["departure"])
            visits.append(v)
    visits += open_.values()
    return sorted(visits, key=lambda v: v["arrival"])


# --- reference stays and matching ------------------------------------------------------------

def anchor_stays(fixes, distance, duration):
    """Stays as ../shared/data/tracks/README.md computed them: anchor point, haversine."""
    stays, i, n = [], 0, len(fixes)
    while i < n:
        j = i + 1
        while j < n and haversine(fixes[i][1], fixes[i][2], fixes[j][1], fixes[j][2]) <= distance:
            j += 1
        if fixes[j - 1][0] - fixes[i][0] >= duration:
            gap = max(fixes[k + 1][0] - fixes[k][0] for k in range(i, j - 1))
            stays.append(dict(start=fixes[i][0], end=fixes[j - 1][0], negative=gap > MAX_GAP))
            i = j
        else:
            i += 1
    return stays


def reference_stays(fixes, distance=100.0, duration=600.0):
    """The anchor method's stays within each stretch of fixes without a gap over 12 h, plus, as
    negatives (stays that must not be found), those it finds across such a gap when run over
    all fixes at once."""
    stretches, start = [], 0
    for k in range(1, len(fixes) + 1):
        if k == len(fixes) or fixes[k][0] - fixes[k - 1][0] > MAX_GAP:
            stretches.append(fixes[start:k])
            start = k
    stays = [s for stretch in stretches for s in anchor_stays(stretch, distance, duration)]
    return stays + [s for s in anchor_stays(fixes, distance, duration) if s["negative"]]


def overlap(a0, a1, b0, b1):
    return min(a1, b1) - max(a0, b0)


def match(visits, stays, end_of_data, close=lambda v, s: True):
    """One-to-one pairs (visit index, stay index), largest temporal overlap first."""
    candidates = []
    for i, v in enumerate(visits):
        v_end = v["departure"] if v["departure"] is not None else end_of_data
        for j, s in enumerate(stays):
            o = overlap(v["arrival"], v_end, s["start"], s["end"])
            if o > 0 and close(v, s):
                candidates.append((o, i, j))
    pairs, used_v, used_s = {}, set(), set()
    for o, i, j in sorted(candidates, key=lambda c: (-c[0], c[1], c[2])):
        if i not in used_v and j not in used_s:
            pairs[i] = j
            used_v.add(i)
            used_s.add(j)
    return pairs


# --- tracks ----------------------------------------------------------------------------------

def evaluate_track(locus, data, name, relpath, what, workdir, out, configs, detail=True):
    """Replays one track with each config; appends tables to `out` if `detail`; returns the counts per config."""
    recording = Path(workdir) / f"{name}.jsonl"
    decode(locus, data / relpath, recording)
    fixes = read_fixes(recording)
    end_of_data = fixes[-1][0]
    if not detail:
        out = []  # computed the same way, printed nowhere
    out.append(f"### {name}: {what}\n")
    out.append(f"`{relpath}`: {len(fixes)} fixes, {short(fixes[0][0])} → {short(fixes[-1][0])} UTC.\n")
    summary = {}
    for label, options, reference_minimum in configs:
        stays = reference_stays(fixes, duration=reference_minimum)
        visits = replay(locus, recording, options, workdir)
        positives = [s for s in stays if not s["negative"]]
        pairs = match(visits, positives, end_of_data)
        by_stay = {j: i for i, j in pairs.items()}
        out.append(f"**{label}** ({config_inline(options)}): {len(visits)} visits; "
                   f"{len(positives)} reference stays of {reference_minimum // 60} min or more"
                   + (f", and {sum(s['negative'] for s in stays)} across a gap over 12 h that must not be a stay"
                      if any(s["negative"] for s in stays) else "") + ".\n")
        out.append("| reference stay | min | Locus arrival | Locus departure | min | arrival err | departure err |")
        out.append("|---|---|---|---|---|---|---|")
        arrival_errors, departure_errors = [], []
        for j, s in enumerate(positives):
            ref = f"{short(s['start'])} → {short(s['end'])[6:]}"
            ref_min = f"{(s['end'] - s['start']) / 60:.0f}"
            if j not in by_stay:
                out.append(f"| {ref} | {ref_min} | not found | | | | |")
                continue
            v = visits[by_stay[j]]
            a_err = (v["arrival"] - s["start"]) / 60
            arrival_errors.append(abs(a_err))
            if v["departure"] is None:
                dep, dur, d_err = "open at end of track", "", None
            else:
                dep, dur = short(v["departure"])[6:], f"{(v['departure'] - v['arrival']) / 60:.0f}"
                d_err = (v["departure"] - s["end"]) / 60
                departure_errors.append(abs(d_err))
            out.append(f"| {ref} | {ref_min} | {short(v['arrival'])[6:]} | {dep} | {dur} | {minutes(a_err)} | {minutes(d_err)} |")
        extra = [v for i, v in enumerate(visits) if i not in pairs]
        for v in extra:
            dep = "open" if v["departure"] is None else short(v["departure"])[6:]
            dur = "" if v["departure"] is None else f"{(v['departure'] - v['arrival']) / 60:.0f}"
            out.append(f"| (none) | | {short(v['arrival'])[6:]} | {dep} | {dur} | | |")
        for s in stays:
            if s["negative"]:
                spans = [v for v in visits if v["arrival"] <= s["start"] + 1 and
                         (v["departure"] or end_of_data) >= s["end"] - 1]
                out.append(f"\nGap {short(s['start'])} → {short(s['end'])} "
                           f"({(s['end'] - s['start']) / 86400:.0f} days): "
                           + ("**a visit spans it (wrong)**" if spans else "no visit spans it (right)") + ".")
        out.append("")
        out.append(f"Recall {len(pairs)}/{len(positives)}, precision {len(pairs)}/{len(visits)}. Median |arrival error| "
                   f"{fmt(median(arrival_errors))} min, median |departure error| {fmt(median(departure_errors))} min.\n")
        summary[label] = dict(found=len(pairs), stays=len(positives), visits=len(visits),
                              arrival_errors=arrival_errors, departure_errors=departure_errors)
    return summary


def config_inline(options):
    return "visits defaults" if not options else ", ".join(f"{k}: {v}" for k, v in options.items())


# --- Google Takeout --------------------------------------------------------------------------

def takeout_points_and_visits(data):
    points, visits = {}, []
    for rel in TAKEOUT_FILES:
        doc = json.loads((data / rel).read_text(encoding="utf-8"))
        for obj in doc["timelineObjects"]:
            for kind, body in obj.items():
                for p in (body.get("simplifiedRawPath") or {}).get("points", []):
                    t = parse_time(p["timestamp"])
                    # The same point can be listed by a segment and the visit next to it.
                    points[(t, p["latE7"], p["lngE7"])] = p.get("accuracyMeters")
                if kind == "placeVisit":
                    lat = body.get("centerLatE7", body["location"]["latitudeE7"]) / 1e7
                    lon = body.get("centerLngE7", body["location"]["longitudeE7"]) / 1e7
                    visits.append(dict(start=parse_time(body["duration"]["startTimestamp"]),
                                       end=parse_time(body["duration"]["endTimestamp"]), lat=lat, lon=lon))
    ordered = sorted(points.items())
    return [(t, la / 1e7, lo / 1e7, acc) for (t, la, lo), acc in ordered], sorted(visits, key=lambda v: v["start"])


def write_takeout_recording(points, path):
    with open(path, "w", encoding="utf-8") as f:
        for seq, (t, lat, lon, acc) in enumerate(points, 1):
            payload = {"source": "takeout", "mode": "2d", "lat": round(lat, 7), "lon": round(lon, 7)}
            if acc is not None:
                payload["h_accuracy"] = acc
            env = {"type": "obs.fix", "version": 1, "producer": "takeout", "seq": seq, "time": iso(t),
                   "payload": payload}
            f.write(json.dumps({"topic": "obs.fix.takeout", "envelope": env}, separators=(",", ":")) + "\n")


def near_points(visit, points):
    """Times of the raw points inside the Google visit's interval and within the match distance of its centre."""
    return [t for t, lat, lon, _ in points if visit["start"] <= t <= visit["end"]
            and haversine(lat, lon, visit["lat"], visit["lon"]) <= TAKEOUT_MATCH_METRES]


def observable(visit, points):
    """Whether the raw points show this Google visit: two of them near its centre, inside it, min_stay apart."""
    near = near_points(visit, points)
    return len(near) >= 2 and near[-1] - near[0] >= TAKEOUT_MIN_STAY


def evaluate_takeout(locus, data, workdir, out):
    points, google = takeout_points_and_visits(data)
    recording = Path(workdir) / "takeout.jsonl"
    write_takeout_recording(points, recording)
    inside = [g for g in google if any(g["start"] <= t <= g["end"] for t, *_ in points)]
    evaluable = [g for g in google if observable(g, points)]
    out.append("### Google Takeout: 2013_MAY.json + 2013_JUNE.json\n")
    out.append(f"{len(google)} Google placeVisits, {len(points)} timed raw points "
               f"({short(points[0][0])} → {short(points[-1][0])}). {len(inside)} visits have at least one raw "
               f"point inside their interval; {len(evaluable)} are observable (two raw points within "
               f"{TAKEOUT_MATCH_METRES} m of the centre, inside the interval, ≥ {TAKEOUT_MIN_STAY // 60} min apart).\n")
    end_of_data = points[-1][0]

    def close(v, g):
        return haversine(v["lat"], v["lon"], g["lat"], g["lon"]) <= TAKEOUT_MATCH_METRES

    results = {}
    for label, options in TAKEOUT_CONFIGS:
        visits = replay(locus, recording, options, workdir)
        pairs = match(visits, google, end_of_data, close)
        matched_google = set(pairs.values())
        precision = len(pairs) / len(visits) if visits else None
        recall_idx = [google.index(g) for g in evaluable]
        recalled = [j for j in recall_idx if j in matched_google]
        recall_inside = [google.index(g) for g in inside]
        a_err = [abs(visits[i]["arrival"] - google[j]["start"]) / 60 for i, j in pairs.items()]
        nears = [near_points(google[j], points) for j in pairs.values()]
        bound_a = [(n[0] - google[j]["start"]) / 60 for n, j in zip(nears, pairs.values()) if n]
        bound_d = [(google[j]["end"] - n[-1]) / 60 for n, j in zip(nears, pairs.values()) if n]
        d_err = [abs(visits[i]["departure"] - google[j]["end"]) / 60 for i, j in pairs.items()
                 if visits[i]["departure"] is not None]
        out.append(f"**{label}** ({config_inline(options)}): {len(visits)} Locus visits\n")
        out.append("| Locus arrival | Locus departure | min | fixes | Google visit | min | dist m | arrival err | departure err "
                   "| first / last raw point near it |")
        out.append("|---|---|---|---|---|---|---|---|---|---|")
        for i, v in enumerate(visits):
            dep = "open" if v["departure"] is None else short(v["departure"])
            dur = "" if v["departure"] is None else f"{(v['departure'] - v['arrival']) / 60:.0f}"
            if i in pairs:
                g = google[pairs[i]]
                dist = haversine(v["lat"], v["lon"], g["lat"], g["lon"])
                d = None if v["departure"] is None else (v["departure"] - g["end"]) / 60
                near = near_points(g, points)
                bound = (f"{minutes((near[0] - g['start']) / 60)} / {minutes((near[-1] - g['end']) / 60)}"
                         if near else "none")
                out.append(f"| {short(v['arrival'])} | {dep} | {dur} | {v['fixes']} | {short(g['start'])} → "
                           f"{short(g['end'])} | {(g['end'] - g['start']) / 60:.0f} | {dist:.0f} | "
                           f"{minutes((v['arrival'] - g['start']) / 60)} | {minutes(d)} | {bound} |")
            else:
                out.append(f"| {short(v['arrival'])} | {dep} | {dur} | {v['fixes']} | no match | | | | | |")
        missed = [google[j] for j in recall_idx if j not in matched_google]
        for g in missed:
            out.append(f"| not found | | | | {short(g['start'])} → {short(g['end'])} | "
                       f"{(g['end'] - g['start']) / 60:.0f} | | | | |")
        out.append("")
        out.append(f"Precision {len(pairs)}/{len(visits)} = {fmt(precision * 100 if precision is not None else None, 0)} %; "
                   f"recall {len(recalled)}/{len(recall_idx)} = {fmt(100 * len(recalled) / len(recall_idx), 0)} % of the "
                   f"observable visits ({sum(1 for j in recall_inside if j in matched_google)}/{len(recall_inside)} of "
                   f"those with a raw point inside); median |arrival error| {fmt(median(a_err))} min, median "
                   f"|departure error| {fmt(median(d_err))} min (over the {len(a_err)} and {len(d_err)} matched visits). "
                   f"Bound set by the data: the first and last raw points near the matched Google visits are a median "
                   f"{fmt(median(bound_a))} min after its start and {fmt(median(bound_d))} min before its end.\n")
        results[label] = dict(precision=precision, recalled=len(recalled), observable=len(recall_idx),
                              median_arrival=median(a_err), median_departure=median(d_err))
    return results


def track_totals(locus, data, tracks, workdir, out, configs, detail):
    totals = {label: dict(found=0, stays=0, visits=0, a=[], d=[]) for label, *_ in configs}
    for name, rel, what in tracks:
        for label, s in evaluate_track(locus, data, name, rel, what, workdir, out, configs, detail).items():
            t = totals[label]
            for k in ("found", "stays", "visits"):
                t[k] += s[k]
            t["a"] += s["arrival_errors"]
            t["d"] += s["departure_errors"]
    return totals


def totals_table(configs, totals, out):
    out.append("| config | compared with stays of | recall | precision | median abs arrival err (min) | median abs departure err (min) |")
    out.append("|---|---|---|---|---|---|")
    for label, _, reference_minimum in configs:
        t = totals[label]
        out.append(f"| {label} | ≥ {reference_minimum // 60} min | {t['found']}/{t['stays']} = "
                   f"{fmt(100 * t['found'] / t['stays'], 0)} % | {t['found']}/{t['visits']} = "
                   f"{fmt(100 * t['found'] / t['visits'], 0)} % | {fmt(median(t['a']))} | {fmt(median(t['d']))} |")
    out.append("")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the tracks directory (default ../shared/data/tracks)")
    parser.add_argument("--locus", type=Path, default=DEFAULT_LOCUS, help="the locus executable (default .build/debug/locus)")
    parser.add_argument("--keep", type=Path, help="keep recordings and configs in this directory")
    args = parser.parse_args(argv)
    if not (args.data / "README.md").exists():
        print(f"evaluate_visits.py: no track data at {args.data}; nothing to evaluate (skipped)")
        return 0
    locus = ensure_locus(args.locus)
    workdir = args.keep or Path(tempfile.mkdtemp(prefix="locus-visits-eval-"))
    workdir.mkdir(parents=True, exist_ok=True)
    out = []
    try:
        available = [t for t in TRACKS if (args.data / t[1]).exists()]
        for name, rel, _ in TRACKS:
            if (name, rel, _) not in available:
                out.append(f"### {name}\n\n`{rel}` is missing: skipped.\n")
        totals = track_totals(locus, args.data, available, workdir, out, TRACK_CONFIGS, detail=True)
        out.append("### All tracks\n")
        totals_table(TRACK_CONFIGS, totals, out)
        out.append("### Sensitivity: one key changed from the defaults, all tracks\n")
        totals_table(SENSITIVITY, track_totals(locus, args.data, available, workdir, out, SENSITIVITY, detail=False), out)
        if all((args.data / rel).exists() for rel in TAKEOUT_FILES):
            evaluate_takeout(locus, args.data, workdir, out)
        else:
            out.append("Google Takeout files missing: skipped.\n")
    finally:
        if args.keep is None:
            shutil.rmtree(workdir, ignore_errors=True)
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())

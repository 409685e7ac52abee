#!/usr/bin/env python3
"""Check the OwnTracks messages an `mqtt` sink published, for end-to-end tests.

    validate_owntracks.py COLLECTED.jsonl SCHEMA.json

COLLECTED is mqtt_collect.py's output. Every message must validate against OwnTracks' own
schema (jsonschema's Draft 2020-12 validator) and follow what the consumers rely on:
Home Assistant drops a location whose `acc` is missing or 0 and matches transitions to zones by
`desc`; units are integers (metres, km/h, epoch seconds); a waypoint (OwnTracks' schema leaves
its structure open) has what the apps send: desc, lat, lon, rad, rid and tst, on <base>/waypoint.
Prints a JSON summary {"location": n, "transition": n, "waypoint": n, "enter": n, "leave": n,
"errors": [...]}; exit status 1 if any message fails.
"""

import json
import sys

from jsonschema import Draft202012Validator


def rule_errors(m):
    errors = []
    t = m.get("_type")
    for key in ("acc", "alt", "vac", "vel", "tst", "wtst", "rad"):
        if key in m and (not isinstance(m[key], int) or isinstance(m[key], bool)):
            errors.append(f"{key} is not an integer")
    if t in ("location", "transition"):
        if not isinstance(m.get("acc"), int) or m["acc"] <= 0:
            errors.append("acc missing or not positive")
        if not (-90 <= m.get("lat", 999) <= 90 and -180 <= m.get("lon", 999) <= 180):
            errors.append("lat/lon out of range")
        if not isinstance(m.get("tst"), int) or m["tst"] < 946684800:
            errors.append("tst is not an epoch time in seconds")
    if t == "waypoint":
        for key in ("desc", "lat", "lon", "rad", "rid", "tst"):
            if key not in m:
                errors.append(f"waypoint without {key}")
        if not (-90 <= m.get("lat", 999) <= 90 and -180 <= m.get("lon", 999) <= 180):
            errors.append("lat/lon out of range")
        if isinstance(m.get("rad"), int) and m["rad"] <= 0:
            errors.append("rad is not positive")
    if t == "transition":
        if not m.get("desc"):
            errors.append("transition without desc")
        if m.get("event") not in ("enter", "leave"):
            errors.append("transition event is not enter/leave")
    return errors


def main(argv):
    collected, schema_path = argv[1], argv[2]
    validator = Draft202012Validator(json.load(open(schema_path, encoding="utf-8")))
    summary = {"location": 0, "transition": 0, "waypoint": 0, "enter": 0, "leave": 0, "errors": []}
    for line in open(collected, encoding="utf-8"):
        record = json.loads(line)
        if not record["topic"].startswith("owntracks/"):
            continue
        try:
            m = json.loads(record["payload"])
        except ValueError as e:
            summary["errors"].append(f"{record['topic']}: not JSON: {e}")
            continue
        problems = [e.message for e in validator.iter_errors(m)] + rule_errors(m)
        if problems:
            summary["errors"].append(f"{record['topic']}: {record['payload']}: {problems}")
        t = m.get("_type")
        if t in summary:
            summary[t] += 1
        if t == "transition":
            summary[m.get("event", "?")] = summary.get(m.get("event", "?"), 0) + 1
            if not record["topic"].endswith("/event"):
                summary["errors"].append(f"transition on {record['topic']}, not on <base>/event")
        if t == "waypoint" and not record["topic"].endswith("/waypoint"):
            summary["errors"].append(f"waypoint on {record['topic']}, not on <base>/waypoint")
    print(json.dumps(summary))
    return 1 if summary["errors"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""Compares what a full and a reduced (topics + precision) publish endpoint delivered.

usage: check_reduced.py FULL.jsonl REDUCED.jsonl PRECISION_METRES PREFIX...

Both files are collect.py recordings of one run. Checks that every reduced message:
- has a topic starting with one of PREFIX;
- has lat/lon (where the original had them) at the centre of a PRECISION grid cell, computed
  here independently of Locus, and h_accuracy >= PRECISION;
- has no speed, course, heading, their accuracies, altitude or v_accuracy, and a distance
  that is a multiple of PRECISION;
- has a full counterpart (same producer and seq) with the same topic and header;
and that, from the first reduced message of each producer on, every full message of an allowed
topic has its reduced counterpart (nothing lost). Prints a JSON summary; exit 1 on any failure.
"""
import json
import math
import sys

full_path, reduced_path, precision, prefixes = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4:]
R = 6371008.8
STEP = precision / (R * math.pi / 180)
REMOVED = {"speed", "course", "heading", "speed_accuracy", "course_accuracy", "alt_msl", "alt_hae", "v_accuracy", "vdop", "pdop", "sentence"}


def load(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                record = json.loads(line)
                out.append((record["topic"], json.loads(record["envelope"]) if isinstance(record["envelope"], str) else record["envelope"]))
    return out


def on_grid(lat, lon):
    row = math.floor(lat / STEP)
    clat = (row + 0.5) * STEP
    lon_step = min(360, STEP / max(math.cos(math.radians(clat)), 0.001))
    clon = (math.floor(lon / lon_step) + 0.5) * lon_step
    return abs(lat - clat) < 2e-7 and abs(lon - clon) < 2e-7


full = load(full_path)
reduced = load(reduced_path)
by_key = {(e["producer"], e["seq"]): (t, e) for t, e in full}
failures = []
first = {}
positions = 0
for topic, env in reduced:
    key = (env["producer"], env["seq"])
    first.setdefault(env["producer"], env["seq"])
    if not any(topic.startswith(p) for p in prefixes):
        failures.append(f"topic {topic} is not allowed")
    original = by_key.get(key)
    if original is None:
        failures.append(f"{key} has no full counterpart")
        continue
    if original[0] != topic or any(original[1][k] != env[k] for k in ("type", "version", "time")):
        failures.append(f"{key}: header or topic differs")
    p, o = env["payload"], original[1]["payload"]
    for k in REMOVED & p.keys():
        failures.append(f"{key}: {k} kept")
    if "lat" in o:
        positions += 1
        if not on_grid(p["lat"], p["lon"]):
            failures.append(f"{key}: {p['lat']},{p['lon']} is not a grid centre")
        if p.get("h_accuracy", 0) < precision:
            failures.append(f"{key}: h_accuracy {p.get('h_accuracy')}")
    if "distance" in p and abs(p["distance"] / precision - round(p["distance"] / precision)) > 1e-9:
        failures.append(f"{key}: distance {p['distance']}")
reduced_keys = {(e["producer"], e["seq"]) for _, e in reduced}
expected = [(e["producer"], e["seq"]) for t, e in full
            if any(t.startswith(p) for p in prefixes) and e["producer"] in first and e["seq"] >= first[e["producer"]]]
missing = [k for k in expected if k not in reduced_keys]
if missing:
    failures.append(f"{len(missing)} allowed message(s) missing, first {missing[:3]}")
print(json.dumps({"reduced": len(reduced), "full": len(full), "positions": positions, "expected": len(expected),
                  "failures": failures[:20]}))
sys.exit(1 if failures or not reduced else 0)

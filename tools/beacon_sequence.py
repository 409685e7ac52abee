#!/usr/bin/python3
"""Seeded, deterministic BLE beacon recordings for the beacon service (stdlib only).

    beacon_sequence.py case NAME OUT.jsonl     one of the golden scenarios (see SCENARIOS)
    beacon_sequence.py rssi OUT.csv            the noisy RSSI walk the filter tests use
    beacon_sequence.py bench OUTDIR [--beacons 500] [--rate 10] [--seconds 30] [--conditions 1000]

Advertisements are built from real frames (Plugins/Beacon/testdata/vectors.json, copied from
the shared BLE vectors; --vectors to read another copy): the manufacturer or service data of
the frame as heard, and the decoded `beacon` object as Locus's BlueZ source sends it. Where a
scenario needs a second beacon of one UUID or namespace, the real frame's major or instance
bytes are changed and nothing else.

The radio model, per advertisement:
- path loss: rssi = P1m - 10 n log10(d) (n = 2.0, the service's default, so the bands the
  service reports can be checked against the true distance);
- log-normal shadowing: a Gauss-Markov process, sigma 3 dB, correlation time 3 s (people and
  furniture move slowly relative to the link);
- multipath fading: Rician with K = 2 (indoor, weak line of sight), drawn independently for
  every advertisement because each goes out on one of three channels 24 MHz apart;
- receiver: samples below -98 dBm are lost, from -98 to -88 dBm with linearly falling
  probability; 8 % of the rest are lost at random (scan window), and bursts of 2-6 s are lost
  now and then (a body between phone and beacon), at a rate of one per 45 s;
- the address is a resolvable private address that changes every `rotate` seconds, as phones
  and many beacons do: the service must not take a new address for a new beacon.

Same arguments, same output: every random draw comes from one random.Random(seed).
"""
import argparse
import json
import math
import random
import sys
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_VECTORS = ROOT / "Plugins" / "Beacon" / "testdata" / "vectors.json"
EPOCH = datetime(2026, 3, 14, 9, 0, 0, tzinfo=timezone.utc).timestamp()
PATH_LOSS_N = 2.0


# ---------------------------------------------------------------- frames

def ad_structures(raw):
    """[(type, bytes)] of an advertising payload; stops at a zero length (padding)."""
    out, i = [], 0
    while i < len(raw):
        n = raw[i]
        if n == 0 or i + 1 + n > len(raw):
            break
        out.append((raw[i + 1], raw[i + 2:i + 1 + n]))
        i += 1 + n
    return out


def frame_blocks(vector):
    """(manufacturer_data, service_data) of a vector as obs.ble lists them."""
    raw = bytes.fromhex(vector["raw_hex"])
    if vector["format"] == "manufacturer_data":
        return [{"company_id": vector["company_id"], "data": raw.hex()}], []
    mfg, svc = [], []
    for t, v in ad_structures(raw):
        if t == 0xFF and len(v) >= 2:
            mfg.append({"company_id": v[0] | v[1] << 8, "data": v[2:].hex()})
        elif t == 0x16 and len(v) >= 2:
            svc.append({"uuid": "%04x" % (v[0] | v[1] << 8), "data": v[2:].hex()})
    return mfg, svc


def int8(b):
    return b - 256 if b > 127 else b


def decode(mfg, svc):
    """The `beacon` object, as LocusBLE.BeaconDecoder gives it, or None."""
    for m in mfg:
        d = bytes.fromhex(m["data"])
        if m["company_id"] == 0x004C and len(d) >= 23 and d[0] == 0x02 and d[1] == 0x15:
            u = d[2:18].hex()
            return {"format": "ibeacon", "uuid": "-".join([u[:8], u[8:12], u[12:16], u[16:20], u[20:]]),
                    "major": d[18] << 8 | d[19], "minor": d[20] << 8 | d[21], "measured_power": int8(d[22])}
        if 23 <= len(d) <= 24 and d[0] == 0xBE and d[1] == 0xAC:
            i = d[2:18].hex()
            # id1/id2/id3: the standard id as the Android Beacon Library writes it.
            return {"format": "altbeacon", "beacon_id": d[2:22].hex(),
                    "id1": "-".join([i[:8], i[8:12], i[12:16], i[16:20], i[20:]]),
                    "id2": d[18] << 8 | d[19], "id3": d[20] << 8 | d[21], "measured_power": int8(d[22])}
    for s in svc:
        d = bytes.fromhex(s["data"])
        if s["uuid"] == "feaa" and len(d) in (18, 20) and d[0] == 0x00:
            # Eddystone's TX power is at 0 m; 41 dB of loss to 1 m (LocusBLE.eddystonePowerLossAt1m).
            return {"format": "eddystone_uid", "namespace": d[2:12].hex(), "instance": d[12:18].hex(),
                    "measured_power": int8(d[1]) - 41}
    return None


def with_major(mfg, major):
    """The iBeacon block with another major (bytes 18-19 of the Apple payload)."""
    d = bytearray.fromhex(mfg[0]["data"])
    d[18], d[19] = major >> 8, major & 0xFF
    return [dict(mfg[0], data=d.hex())] + mfg[1:]


def with_instance(svc, instance_hex):
    d = bytearray.fromhex(svc[0]["data"])
    d[12:18] = bytes.fromhex(instance_hex)
    return [dict(svc[0], data=d.hex())] + svc[1:]


def with_minor(mfg, minor):
    d = bytearray.fromhex(mfg[0]["data"])
    d[20], d[21] = minor >> 8, minor & 0xFF
    return [dict(mfg[0], data=d.hex())] + mfg[1:]


def load_vectors(path):
    return {v["id"]: v for v in json.loads(Path(path).read_text())["vectors"]}


# ---------------------------------------------------------------- radio

class Link:
    """One beacon → scanner link: shadowing state, burst losses, address rotation."""

    def __init__(self, rng, p1m, rotate):
        self.rng, self.p1m, self.rotate = rng, p1m, rotate
        self.shadow, self.t = rng.gauss(0, 3.0), None
        self.burst_until = -1.0
        self.addresses = {}

    def address(self, t):
        epoch = int(t // self.rotate)
        if epoch not in self.addresses:
            b = [self.rng.randrange(256) for _ in range(6)]
            b[0] = (b[0] & 0x3F) | 0x40          # resolvable private address
            self.addresses[epoch] = ":".join("%02X" % x for x in b)
        return self.addresses[epoch]

    def sample(self, t, d):
        """RSSI heard at time t (seconds) and true distance d (metres), or None if lost."""
        rng = self.rng
        dt = 0.0 if self.t is None else max(0.0, t - self.t)
        if self.t is not None:
            a = math.exp(-dt / 3.0)
            self.shadow = a * self.shadow + math.sqrt(1 - a * a) * rng.gauss(0, 3.0)
        self.t = t
        if t >= self.burst_until and rng.random() < dt / 45.0:
            self.burst_until = t + rng.uniform(2, 6)
        k = 2.0
        los = math.sqrt(k / (k + 1))
        h = complex(los + rng.gauss(0, math.sqrt(0.5 / (k + 1))), rng.gauss(0, math.sqrt(0.5 / (k + 1))))
        fade = 20 * math.log10(max(abs(h), 1e-3))
        self.mean = self.p1m - 10 * PATH_LOSS_N * math.log10(max(d, 0.05)) + self.shadow
        rssi = self.mean + fade
        if t < self.burst_until or rng.random() < 0.08:
            return None
        if rssi < -98 or (rssi < -88 and rng.random() < (-88 - rssi) / 10):
            return None
        return max(-127, min(20, int(round(rssi))))


def piecewise(points):
    """Linear interpolation through [(t, value)]; constant outside."""
    def f(t):
        if t <= points[0][0]:
            return points[0][1]
        for (t0, v0), (t1, v1) in zip(points, points[1:]):
            if t <= t1:
                return v0 + (v1 - v0) * (t - t0) / (t1 - t0)
        return points[-1][1]
    return f


def walk(points, offset):
    """Distance to a beacon `offset` metres off a straight path, the walker at x(t)."""
    x = piecewise(points)
    return lambda t: math.hypot(x(t), offset)


# ---------------------------------------------------------------- scenarios

def beacon_spec(vectors, name, **change):
    """(mfg, svc) of a named vector, with major/minor/instance changed if asked."""
    mfg, svc = frame_blocks(vectors[name])
    if "major" in change:
        mfg = with_major(mfg, change["major"])
    if "minor" in change:
        mfg = with_minor(mfg, change["minor"])
    if "instance" in change:
        svc = with_instance(svc, change["instance"])
    return mfg, svc


def scenario(name, vectors):
    """[(label, (mfg, svc), distance(t), active(t), interval, raw_only)], duration."""
    charm = beacon_spec(vectors, "ibeacon-ble-01")
    alt = beacon_spec(vectors, "altbeacon-01")
    if name == "beacon-walkby":
        # Walk up to a desk beacon (30 m → 0.3 m), stand, step back to 2 m, leave to 60 m.
        d = walk([(0, -30), (36, -1), (38, 0), (58, 0), (62, 2), (76, 2), (140, 60)], 0.3)
        return [("charm", charm, d, lambda t: t < 140, 0.5, False),
                ("alt", alt, lambda t: 5.0, lambda t: True, 1.0, False)], 200
    if name == "beacon-wildcard":
        return [("charm", charm, walk([(0, 8), (20, 3), (50, 3), (70, 25)], 0.5), lambda t: 5 <= t < 70, 0.5, False),
                ("alt", alt, lambda t: 4.0, lambda t: 20 <= t < 100, 1.0, False),
                ("charm-2", beacon_spec(vectors, "ibeacon-ble-01", major=3838, minor=4950), lambda t: 6.0,
                 lambda t: 40 <= t < 60, 1.0, False),
                # Matches no condition; keeps the recording (and its ticks) going past the exits.
                ("background", beacon_spec(vectors, "aosp-02"), lambda t: 5.0, lambda t: True, 1.0, False)], 150
    if name == "beacon-two-majors":
        a = beacon_spec(vectors, "ibeacon-ble-01")
        b = beacon_spec(vectors, "ibeacon-ble-01", major=3839)
        return [("a", a, lambda t: 2.0, lambda t: 2 <= t < 80, 0.5, False),
                ("b", b, walk([(20, -20), (60, -1), (100, -1), (120, 10)], 0.5), lambda t: 20 <= t < 120, 0.5, False),
                ("background", alt, lambda t: 5.0, lambda t: True, 1.0, False)], 170
    if name == "beacon-eddystone":
        one = beacon_spec(vectors, "aosp-02")
        two = beacon_spec(vectors, "aosp-02", instance="000000000002")
        return [("one", one, walk([(0, 15), (30, 1), (60, 1), (90, 30)], 0.4), lambda t: t < 90, 0.5, False),
                ("two", two, lambda t: 3.0, lambda t: 10 <= t < 120, 1.0, True),
                ("background", alt, lambda t: 5.0, lambda t: True, 1.0, False)], 170
    sys.exit(f"unknown scenario {name}; one of beacon-walkby, beacon-wildcard, beacon-two-majors, beacon-eddystone")


def iso(t):
    ms = int(round((EPOCH + t) * 1000))
    return datetime.fromtimestamp(ms // 1000, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S") + ".%03dZ" % (ms % 1000)


def advertisements(specs, duration, rng, source="ble0", rotate=40.0):
    """[(t, payload)] in time order."""
    out = []
    for label, (mfg, svc), dist, active, interval, raw_only in specs:
        beacon = decode(mfg, svc)
        link = Link(rng, beacon["measured_power"], rotate)
        # Advertising events every `interval` plus the spec's 0-10 ms random advDelay.
        t = rng.uniform(0, interval)
        while t < duration:
            if active(t):
                rssi = link.sample(t, dist(t))
                if rssi is not None:
                    p = {"source": source, "address": link.address(t), "address_type": "random", "rssi": rssi}
                    if mfg:
                        p["manufacturer_data"] = mfg
                    if svc:
                        p["service_data"] = svc
                    if not raw_only:
                        p["beacon"] = beacon
                    out.append((round(t, 3), label, p))
            t += interval + rng.uniform(0, 0.010)
    out.sort(key=lambda e: (e[0], e[1]))
    return [(t, p) for t, _, p in out]


def write_recording(ads, path, source="ble0"):
    with open(path, "w") as f:
        for seq, (t, p) in enumerate(ads, 1):
            msg = {"topic": f"obs.ble.{source}",
                   "envelope": {"type": "obs.ble", "version": 1, "producer": source, "seq": seq, "time": iso(t), "payload": p}}
            f.write(json.dumps(msg, separators=(",", ":")) + "\n")


# ---------------------------------------------------------------- rssi fixture

def rssi_walk(rng):
    """A 10 Hz beacon passed at 0.25 m on a 0.8 m/s walk, with stops at 8 m (far), 1.5 m (near)
    and 0.25 m (immediate), each well inside its band: rows of (t, true distance, rssi) for the
    advertisements heard."""
    x = piecewise([(0, -25), (20, -8), (35, -8), (43, -1.5), (58, -1.5), (60, 0), (75, 0), (98, 18), (120, 18)])
    link = Link(rng, -59, 1e9)
    rows, t = [], 0.0
    while t < 120:
        d = math.hypot(x(t), 0.25)
        r = link.sample(t, d)
        if r is not None:
            rows.append((round(t, 3), round(d, 3), round(link.mean, 2), r))
        t += 0.1 + rng.uniform(0, 0.010)
    return rows


# ---------------------------------------------------------------- bench

def bench(outdir, beacons, rate, seconds, conditions, rng):
    """`beacons` beacons (the Blue Charm iBeacon frame with the UUID, major and minor bytes
    changed: beacons // 10 UUIDs, 5 majors each) each advertising at `rate` Hz for `seconds`,
    every advertisement heard (RSSI fixed per beacon ± 6 dB), and `conditions` conditions: one
    exact per beacon, then one per (UUID, major) with ranging, one per UUID, and the rest on
    UUIDs nobody advertises. Writes bench-input.jsonl, bench-conditions.json and a config
    for `locus run` / `locus replay` (bench-config.yaml).

    With the defaults: 500 exact + 250 major-wide (ranging) + 50 UUID-wide + 200 absent = 1000
    conditions; each advertisement satisfies 3 of them.
    """
    base = frame_blocks(load_vectors(DEFAULT_VECTORS)["ibeacon-ble-01"])[0]
    uuids = ["%08x-4368-6172-6d42-6561636f6e73" % (0x426c7565 + i) for i in range(max(1, beacons // 10))]
    fleet = []
    for i in range(beacons):
        u = uuids[i % len(uuids)]
        d = bytearray.fromhex(base[0]["data"])
        d[2:18] = bytes.fromhex(u.replace("-", ""))
        major, minor = 100 + (i // len(uuids)) % 5, i
        d[18], d[19], d[20], d[21] = major >> 8, major & 0xFF, minor >> 8, minor & 0xFF
        mfg = [{"company_id": 76, "data": d.hex()}]
        fleet.append((u, major, minor, mfg, decode(mfg, [])))
    conds = []
    for u, major, minor, _, _ in fleet:
        if len(conds) < conditions:
            conds.append({"id": f"b{len(conds)}", "uuid": u, "major": major, "minor": minor})
    majors = sorted({(u, m) for u, m, _, _, _ in fleet})
    for u, m in majors:
        if len(conds) < conditions:
            conds.append({"id": f"m{len(conds)}", "uuid": u, "major": m, "ranging": True})
    for u in uuids:
        if len(conds) < conditions:
            conds.append({"id": f"u{len(conds)}", "uuid": u})
    i = 0
    while len(conds) < conditions:   # conditions for beacons not present
        conds.append({"id": f"x{len(conds)}", "uuid": "00000000-0000-0000-0000-%012x" % i, "major": 1})
        i += 1
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench-conditions.json").write_text(json.dumps(conds, indent=0) + "\n")
    with open(out / "bench-config.yaml", "w") as f:
        f.write("# tools/beacon_sequence.py bench: %d conditions over %d beacons at %g Hz\nservices:\n" % (conditions, beacons, rate))
        f.write("  - id: beacons\n    type: beacon\n    persist: false\n    conditions:\n")
        for c in conds:
            f.write("      - " + json.dumps(c, separators=(", ", ": ")) + "\n")
    n = 0
    with open(out / "bench-input.jsonl", "w") as f:
        phases = [rng.uniform(0, 1 / rate) for _ in fleet]
        rssi = [rng.randint(-90, -50) for _ in fleet]
        addresses = ["%02X:%02X:%02X:%02X:%02X:%02X" % tuple([0x40 | rng.randrange(64)] + [rng.randrange(256) for _ in range(5)]) for _ in fleet]
        for k in range(int(seconds * rate)):
            tick = []
            for j, (_, _, _, mfg, beacon) in enumerate(fleet):
                tick.append((k / rate + phases[j], j))
            tick.sort()
            for t, j in tick:
                n += 1
                p = {"source": "ble0", "address": addresses[j], "address_type": "random",
                     "rssi": rssi[j] + rng.randint(-6, 6), "manufacturer_data": fleet[j][3], "beacon": fleet[j][4]}
                msg = {"topic": "obs.ble.ble0", "envelope": {"type": "obs.ble", "version": 1, "producer": "ble0", "seq": n,
                                                             "time": iso(t), "payload": p}}
                f.write(json.dumps(msg, separators=(",", ":")) + "\n")
    print(f"{out}/bench-input.jsonl: {n} advertisements; {out}/bench-config.yaml: {len(conds)} conditions")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vectors", default=str(DEFAULT_VECTORS))
    ap.add_argument("--seed", type=int, default=None, help="default: a fixed seed per scenario")
    sub = ap.add_subparsers(dest="mode", required=True)
    c = sub.add_parser("case")
    c.add_argument("name")
    c.add_argument("out")
    r = sub.add_parser("rssi")
    r.add_argument("out")
    b = sub.add_parser("bench")
    b.add_argument("outdir")
    b.add_argument("--beacons", type=int, default=500)
    b.add_argument("--rate", type=float, default=10)
    b.add_argument("--seconds", type=float, default=30)
    b.add_argument("--conditions", type=int, default=1000)
    a = ap.parse_args(argv)
    if a.mode == "case":
        seed = a.seed if a.seed is not None else sum(a.name.encode())
        rng = random.Random(seed)
        specs, duration = scenario(a.name, load_vectors(a.vectors))
        ads = advertisements(specs, duration, rng)
        write_recording(ads, a.out)
        print(f"{a.out}: {len(ads)} advertisements over {duration} s (seed {seed})", file=sys.stderr)
    elif a.mode == "rssi":
        seed = a.seed if a.seed is not None else 20260314
        rows = rssi_walk(random.Random(seed))
        with open(a.out, "w") as f:
            f.write(f"# tools/beacon_sequence.py rssi (seed {seed}): 10 Hz beacon, P1m -59 dBm, n 2.0, shadowing 3 dB / 3 s,\n")
            f.write("# Rician K=2 fading per advertisement, losses below -88 dBm, 8 % random, bursts of 2-6 s.\n")
            f.write("# local_mean_dbm: path loss + shadowing at that moment, before fading (what a perfect filter could follow).\n")
            f.write("t_s,true_distance_m,local_mean_dbm,rssi_dbm\n")
            for t, d, mean, rssi in rows:
                f.write(f"{t},{d},{mean},{rssi}\n")
        print(f"{a.out}: {len(rows)} samples (seed {seed})", file=sys.stderr)
    else:
        bench(a.outdir, a.beacons, a.rate, a.seconds, a.conditions, random.Random(a.seed or 7))


if __name__ == "__main__":
    main()

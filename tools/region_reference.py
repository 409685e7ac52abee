#!/usr/bin/env python3
"""An independent reference for the region (geofence) service, `type: region` (issue 5).

    /usr/bin/python3 tools/region_reference.py CONFIG.yaml INPUT.jsonl [--service ID]
                     [--tick-interval S] [--naive] [--verbose]

Reads a config in the service's format (a `services:` list; the region service's entries are
the ones with `type: region`, plus their optional GeoJSON `file:`, relative to the config's
directory) and a Locus recording (JSON lines of `{"topic", "envelope"}`, as `locus decode`
writes), and prints the transitions the documented rules give, one per line:

    2005-05-01T10:12:47.000Z  <service id>  <region id>  enter|exit|dwell

Events that the rules produce but a region's `notify_on_entry: false` / `notify_on_exit:
false` suppresses are printed as comments (`# ... exit (not published: notify_on_exit false)`).
The order of events at the same instant is by service, then region (inline `regions:` first,
then the file's features); the service itself promises no order between regions there.

Standard library only. Nothing here is shared with the Swift implementation: this is a
second, plain reading of the rules, for cross-checking the service's golden output.

The rules (the service's documented hysteresis)
-----------------------------------------------
For each region, every `obs.fix.*` message with a position is a fix; its accuracy is its
`h_accuracy` in metres (0 when absent). A fix with accuracy > `max_accuracy` (default 100) is
ignored entirely; the others are *usable*. With d the fix's signed distance to the region's
boundary (negative inside) and m = accuracy + `min_distance` (default 10):

- the fix *decides inside* if -d >= m (d <= 0), *decides outside* if d >= m (d > 0), and is
  *undecided* otherwise;
- the first deciding fix sets the initial state: unknown -> inside publishes `enter`,
  unknown -> outside publishes nothing;
- afterwards, a run of fixes deciding the other side begins with its first such fix; t0 is
  the time of the last usable fix before it. A fix of the run at time t confirms the
  transition (publishes `enter` or `exit`) when t - t0 >= `min_duration` (default 20 s). A fix
  deciding the current side cancels the run; undecided fixes neither cancel nor confirm;
- `dwell` (seconds, optional) is published once per stay: at the first usable fix or clock
  tick at or after enter_time + dwell while the state is still inside. enter_time is the
  time the device was first seen inside: the first fix of the run that confirmed the
  `enter` (the enter's `since`), or the first deciding fix for an initial enter. A fix that
  confirms an exit is processed before the dwell check, so it never also publishes a dwell.

Clock ticks are the ones `locus replay` inserts (LocusCore's TickScheduler): every multiple of
`--tick-interval` seconds (default 1, replay's default) from the first message on, a tick at
T delivered before the first message later than T, and one closing tick at the first
multiple at or after the last message. They matter only for dwell.

Geometry: circles use the WGS-84 geodesic distance (Vincenty's inverse formula, converged to
1e-12 rad: within a fraction of a millimetre of Karney's for the non-antipodal distances
here), d = distance - radius. Polygons (GeoJSON Polygon / MultiPolygon) have straight edges
in the lon/lat plane (RFC 7946), the boundary inside, holes excluded; rings over the
antimeridian are unwrapped (each step the shorter way round). Their distance is the planar
distance to the nearest edge after scaling degrees to metres at the fix's latitude with the
WGS-84 meridional and prime-vertical radii of curvature (a local equirectangular metric:
exact to well under a millimetre at the few hundred metres that matter for hysteresis).

`--naive` prints, per region, what a plain per-fix inside/outside test would do instead: each
usable fix inside iff d <= 0, no accuracy or hysteresis, and counts the changes of that state
after the first fix — next to the number of transitions the rules give.
"""

import argparse
import json
import math
import os
import sys
from datetime import datetime, timezone

# ---------------------------------------------------------------------------------------------
# A YAML subset: block mappings and sequences by indentation, flow {…} and […] (possibly over
# several lines), plain and quoted scalars, comments. Enough for Locus configs; no anchors,
# tags, multi-document streams or block scalars (| and >), which raise an error.


class YAMLError(ValueError):
    pass


def _strip_comment(line):
    out, quote = [], None
    for i, ch in enumerate(line):
        if quote:
            out.append(ch)
            if ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            break
        out.append(ch)
    return "".join(out).rstrip()


def _scalar(text):
    t = text.strip()
    if t == "" or t in ("~", "null", "Null", "NULL"):
        return None
    if t[0] == '"':
        return json.loads(t)
    if t[0] == "'":
        return t[1:-1].replace("''", "'")
    if t in ("true", "True", "TRUE"):
        return True
    if t in ("false", "False", "FALSE"):
        return False
    if t[0] in "|>&*!":
        raise YAMLError(f"unsupported YAML construct: {t!r}")
    try:
        return int(t, 0) if t.lstrip("+-").isdigit() or t.lower().startswith(("0x", "0o")) else float(t)
    except ValueError:
        return t


class _Flow:
    """Recursive descent over a flow collection: {k: v, …} and […]."""

    def __init__(self, text):
        self.s, self.i = text, 0

    def ws(self):
        while self.i < len(self.s) and self.s[self.i] in " \t\n":
            self.i += 1

    def value(self, stops):
        self.ws()
        c = self.s[self.i] if self.i < len(self.s) else ""
        if c == "{":
            return self.mapping()
        if c == "[":
            return self.sequence()
        if c in "\"'":
            j = self.i + 1
            while j < len(self.s):
                if self.s[j] == "\\" and c == '"':
                    j += 2
                    continue
                if self.s[j] == c:
                    if c == "'" and self.s[j + 1 : j + 2] == "'":
                        j += 2
                        continue
                    break
                j += 1
            token, self.i = self.s[self.i : j + 1], j + 1
            return _scalar(token)
        j = self.i
        while j < len(self.s) and self.s[j] not in stops and not (self.s[j] == ":" and ":" in stops and self.s[j + 1 : j + 2] in (" ", "")):
            j += 1
        token, self.i = self.s[self.i : j], j
        return _scalar(token)

    def expect(self, ch):
        self.ws()
        if self.s[self.i : self.i + 1] != ch:
            raise YAMLError(f"expected {ch!r} at {self.s[self.i:self.i + 20]!r}")
        self.i += 1

    def mapping(self):
        self.expect("{")
        out = {}
        self.ws()
        if self.s[self.i : self.i + 1] == "}":
            self.i += 1
            return out
        while True:
            key = self.value(",:}")
            self.expect(":")
            out[key] = self.value(",}")
            self.ws()
            if self.s[self.i : self.i + 1] == ",":
                self.i += 1
                continue
            self.expect("}")
            return out

    def sequence(self):
        self.expect("[")
        out = []
        self.ws()
        if self.s[self.i : self.i + 1] == "]":
            self.i += 1
            return out
        while True:
            out.append(self.value(",]"))
            self.ws()
            if self.s[self.i : self.i + 1] == ",":
                self.i += 1
                continue
            self.expect("]")
            return out


def _flow_or_scalar(text):
    t = text.strip()
    if t[:1] in "{[":
        f = _Flow(t)
        v = f.value("")
        f.ws()
        if f.i != len(t):
            raise YAMLError(f"trailing text after flow collection: {t[f.i:]!r}")
        return v
    return _scalar(t)


def _split_key(content):
    """(key, rest) if the line is `key: rest` / `key:`, else None."""
    quote, depth = None, 0
    for i, ch in enumerate(content):
        if quote:
            if ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        elif ch == ":" and depth == 0 and (i + 1 == len(content) or content[i + 1] == " "):
            return _scalar(content[:i]), content[i + 1 :].strip()
    return None


def parse_yaml(text):
    lines = []
    pending = None  # a flow collection continued over several lines
    for raw in text.splitlines():
        if raw.strip() == "---":
            continue
        if "\t" in raw[: len(raw) - len(raw.lstrip())]:
            raise YAMLError("tabs in indentation")
        line = _strip_comment(raw)
        if not line.strip():
            continue
        if pending is not None:
            pending[1] += " " + line.strip()
        else:
            pending = [len(line) - len(line.lstrip()), line.strip()]
        body = pending[1]
        if body.count("[") + body.count("{") > body.count("]") + body.count("}"):
            continue
        lines.append(tuple(pending))
        pending = None
    if pending is not None:
        raise YAMLError("unterminated flow collection")
    value, i = _block(lines, 0, lines[0][0] if lines else 0)
    if i != len(lines):
        raise YAMLError(f"unexpected indentation at {lines[i][1]!r}")
    return value


def _block(lines, i, indent):
    if i >= len(lines):
        return None, i
    if lines[i][1] == "-" or lines[i][1].startswith("- "):
        return _sequence(lines, i, indent)
    return _mapping(lines, i, indent)


def _sequence(lines, i, indent):
    out = []
    while i < len(lines) and lines[i][0] == indent and (lines[i][1] == "-" or lines[i][1].startswith("- ")):
        rest = lines[i][1][1:].lstrip()
        if not rest:
            value, i = _block(lines, i + 1, lines[i + 1][0]) if i + 1 < len(lines) and lines[i + 1][0] > indent else (None, i + 1)
            out.append(value)
        elif _split_key(rest) is not None or rest.startswith("- "):
            # `- key: value` opens a mapping whose keys sit where `key` does.
            inner = indent + (len(lines[i][1]) - len(rest))
            lines[i] = (inner, rest)
            value, i = _block(lines, i, inner)
            out.append(value)
        else:
            out.append(_flow_or_scalar(rest))
            i += 1
    return out, i


def _mapping(lines, i, indent):
    out = {}
    while i < len(lines) and lines[i][0] == indent:
        split = _split_key(lines[i][1])
        if split is None:
            raise YAMLError(f"expected `key: value`, got {lines[i][1]!r}")
        key, rest = split
        if key in out:
            raise YAMLError(f"duplicate key {key!r}")
        if rest:
            out[key] = _flow_or_scalar(rest)
            i += 1
        elif i + 1 < len(lines) and (lines[i + 1][0] > indent or (lines[i + 1][0] == indent and lines[i + 1][1].startswith("- "))):
            out[key], i = _block(lines, i + 1, lines[i + 1][0])
        else:
            out[key] = None
            i += 1
    return out, i


# ---------------------------------------------------------------------------------------------
# Geodesy

WGS84_A = 6378137.0
WGS84_F = 1 / 298.257223563
WGS84_B = WGS84_A * (1 - WGS84_F)
WGS84_E2 = WGS84_F * (2 - WGS84_F)


def vincenty_distance(lat1, lon1, lat2, lon2):
    """WGS-84 geodesic distance in metres (Vincenty's inverse formula, 1975)."""
    if lat1 == lat2 and lon1 == lon2:
        return 0.0
    f, a, b = WGS84_F, WGS84_A, WGS84_B
    L = math.radians(((lon2 - lon1) + 180) % 360 - 180)
    U1 = math.atan((1 - f) * math.tan(math.radians(lat1)))
    U2 = math.atan((1 - f) * math.tan(math.radians(lat2)))
    sinU1, cosU1, sinU2, cosU2 = math.sin(U1), math.cos(U1), math.sin(U2), math.cos(U2)
    lam = L
    for _ in range(200):
        sinLam, cosLam = math.sin(lam), math.cos(lam)
        sinSigma = math.hypot(cosU2 * sinLam, cosU1 * sinU2 - sinU1 * cosU2 * cosLam)
        if sinSigma == 0:
            return 0.0
        cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosLam
        sigma = math.atan2(sinSigma, cosSigma)
        sinAlpha = cosU1 * cosU2 * sinLam / sinSigma
        cos2Alpha = 1 - sinAlpha * sinAlpha
        cos2SigmaM = cosSigma - 2 * sinU1 * sinU2 / cos2Alpha if cos2Alpha != 0 else 0.0
        C = f / 16 * cos2Alpha * (4 + f * (4 - 3 * cos2Alpha))
        previous = lam
        lam = L + (1 - C) * f * sinAlpha * (sigma + C * sinSigma * (cos2SigmaM + C * cosSigma * (-1 + 2 * cos2SigmaM**2)))
        if abs(lam - previous) < 1e-12:
            break
    else:
        raise ValueError(f"Vincenty did not converge for ({lat1}, {lon1}) to ({lat2}, {lon2}) (nearly antipodal)")
    u2 = cos2Alpha * (a * a - b * b) / (b * b)
    A = 1 + u2 / 16384 * (4096 + u2 * (-768 + u2 * (320 - 175 * u2)))
    B = u2 / 1024 * (256 + u2 * (-128 + u2 * (74 - 47 * u2)))
    dSigma = B * sinSigma * (cos2SigmaM + B / 4 * (cosSigma * (-1 + 2 * cos2SigmaM**2)
                                                  - B / 6 * cos2SigmaM * (-3 + 4 * sinSigma**2) * (-3 + 4 * cos2SigmaM**2)))
    return b * A * (sigma - dSigma)


def metres_per_degree(lat):
    """(east, north) metres per degree of longitude and latitude at `lat` on WGS-84."""
    s = math.sin(math.radians(lat))
    w2 = 1 - WGS84_E2 * s * s
    prime_vertical = WGS84_A / math.sqrt(w2)
    meridional = prime_vertical * (1 - WGS84_E2) / w2
    return prime_vertical * max(math.cos(math.radians(lat)), 1e-12) * math.pi / 180, meridional * math.pi / 180


# ---------------------------------------------------------------------------------------------
# Regions


class Circle:
    def __init__(self, lat, lon, radius):
        if not radius or radius <= 0:
            raise ValueError(f"circle radius must be > 0, got {radius!r}")
        self.lat, self.lon, self.radius = float(lat), float(lon), float(radius)

    def signed_distance(self, lat, lon):
        return vincenty_distance(self.lat, self.lon, lat, lon) - self.radius


def _unwrap(ring):
    """GeoJSON [lon, lat] positions -> (x, y) with consecutive longitudes less than 180° apart."""
    out = []
    for lon, lat, *_ in ring:
        x = ((lon + 180) % 360) - 180
        if out:
            x += 360 * round((out[-1][0] - x) / 360)
        out.append((x, float(lat)))
    return out


class Polygons:
    """A GeoJSON Polygon or MultiPolygon: list of polygons, each a list of unwrapped rings."""

    def __init__(self, geometry):
        kind, coordinates = geometry["type"], geometry["coordinates"]
        if kind == "Polygon":
            coordinates = [coordinates]
        elif kind != "MultiPolygon":
            raise ValueError(f"unsupported geometry type {kind!r}")
        self.polygons = []
        for polygon in coordinates:
            rings = [_unwrap(r) for r in polygon]
            # Holes into the outer ring's 360° frame.
            centre = (min(x for x, _ in rings[0]) + max(x for x, _ in rings[0])) / 2
            for k in range(1, len(rings)):
                hx = (min(x for x, _ in rings[k]) + max(x for x, _ in rings[k])) / 2
                shift = 360 * round((hx - centre) / 360)
                rings[k] = [(x - shift, y) for x, y in rings[k]]
            self.polygons.append((centre, rings))

    @staticmethod
    def _in_ring(x, y, ring):
        """Even-odd crossing test, True also when (x, y) lies on an edge."""
        inside = False
        for (ax, ay), (bx, by) in zip(ring, ring[1:]):
            cross = (bx - ax) * (y - ay) - (x - ax) * (by - ay)
            if cross == 0 and min(ax, bx) <= x <= max(ax, bx) and min(ay, by) <= y <= max(ay, by):
                return True  # on the boundary
            if (ay > y) != (by > y):
                if ax + (y - ay) * (bx - ax) / (by - ay) > x:
                    inside = not inside
        return inside

    @staticmethod
    def _on_ring(x, y, ring):
        for (ax, ay), (bx, by) in zip(ring, ring[1:]):
            cross = (bx - ax) * (y - ay) - (x - ax) * (by - ay)
            if cross == 0 and min(ax, bx) <= x <= max(ax, bx) and min(ay, by) <= y <= max(ay, by):
                return True
        return False

    def contains(self, lat, lon):
        for centre, rings in self.polygons:
            x = lon - 360 * round((lon - centre) / 360)
            if not self._in_ring(x, lat, rings[0]):
                continue
            if any(self._in_ring(x, lat, h) and not self._on_ring(x, lat, h) for h in rings[1:]):
                continue
            return True
        return False

    def signed_distance(self, lat, lon):
        kx, ky = metres_per_degree(lat)
        best = math.inf
        for centre, rings in self.polygons:
            x = lon - 360 * round((lon - centre) / 360)
            for ring in rings:
                for (ax, ay), (bx, by) in zip(ring, ring[1:]):
                    # In metres, the fix at the origin.
                    px, py = (ax - x) * kx, (ay - lat) * ky
                    dx, dy = (bx - ax) * kx, (by - ay) * ky
                    l2 = dx * dx + dy * dy
                    t = 0.0 if l2 == 0 else max(0.0, min(1.0, -(px * dx + py * dy) / l2))
                    best = min(best, math.hypot(px + t * dx, py + t * dy))
        return -best if self.contains(lat, lon) else best


class Region:
    def __init__(self, rid, shape, dwell=None, notify_on_entry=True, notify_on_exit=True, properties=None):
        self.id, self.shape, self.dwell = rid, shape, dwell
        self.notify_on_entry, self.notify_on_exit = notify_on_entry, notify_on_exit
        self.properties = properties or {}

    def signed_distance(self, lat, lon):
        return self.shape.signed_distance(lat, lon)


OPTION_KEYS = {"id", "radius", "dwell", "notify_on_entry", "notify_on_exit"}


def region_from_config(entry):
    rid = entry["id"]
    if "center" in entry:
        shape = Circle(entry["center"]["lat"], entry["center"]["lon"], entry["radius"])
    elif "geometry" in entry:
        shape = Polygons(entry["geometry"])
    else:
        raise ValueError(f"region {rid!r} has neither center nor geometry")
    return Region(rid, shape, entry.get("dwell"), entry.get("notify_on_entry", True),
                  entry.get("notify_on_exit", True), entry.get("properties"))


def region_from_feature(feature):
    props = dict(feature.get("properties") or {})
    rid, geometry = props["id"], feature["geometry"]
    if geometry["type"] == "Point":
        lon, lat = geometry["coordinates"][:2]
        shape = Circle(lat, lon, props["radius"])
    else:
        shape = Polygons(geometry)
    return Region(rid, shape, props.get("dwell"), props.get("notify_on_entry", True),
                  props.get("notify_on_exit", True), {k: v for k, v in props.items() if k not in OPTION_KEYS})


class Service:
    def __init__(self, entry, directory):
        self.id = entry["id"]
        self.min_distance = float(entry.get("min_distance", 10))
        self.min_duration = float(entry.get("min_duration", 20))
        self.max_accuracy = float(entry.get("max_accuracy", 100))
        self.regions = [region_from_config(r) for r in entry.get("regions") or []]
        if entry.get("file"):
            with open(os.path.join(directory, entry["file"]), encoding="utf-8") as f:
                collection = json.load(f)
            self.regions += [region_from_feature(feature) for feature in collection["features"]]
        ids = [r.id for r in self.regions]
        if len(set(ids)) != len(ids):
            raise ValueError(f"service {self.id}: duplicate region ids")


def load_services(config_path, service_id=None):
    with open(config_path, encoding="utf-8") as f:
        config = parse_yaml(f.read())
    directory = os.path.dirname(os.path.abspath(config_path))
    services = [Service(s, directory) for s in config.get("services") or [] if s.get("type") == "region"]
    if service_id is not None:
        services = [s for s in services if s.id == service_id]
    if not services:
        raise ValueError(f"{config_path}: no region service" + (f" with id {service_id!r}" if service_id else ""))
    return services


# ---------------------------------------------------------------------------------------------
# Input and time


def parse_time(text):
    return datetime.strptime(text.replace("Z", "+0000"), "%Y-%m-%dT%H:%M:%S.%f%z" if "." in text else "%Y-%m-%dT%H:%M:%S%z").timestamp()


def format_time(t):
    ms = int(round(t * 1000))
    return datetime.fromtimestamp(ms // 1000, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S") + f".{ms % 1000:03d}Z"


def read_recording(path):
    """Every message of a Locus recording in file order, as (t seconds, fix or None): a fix is
    (t, lat, lon, accuracy or None) for an obs.fix.* message with a position; other messages
    (obs.sky.*, fixes without a position) are None but still schedule clock ticks."""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            message = json.loads(line)
            topic, envelope = message["topic"], message["envelope"]
            t, payload = parse_time(envelope["time"]), envelope["payload"]
            fix = None
            if topic.startswith("obs.fix.") and payload.get("lat") is not None and payload.get("lon") is not None:
                fix = (t, payload["lat"], payload["lon"], payload.get("h_accuracy"))
            out.append((t, fix))
    return out


def timeline(recording, tick_interval):
    """Fixes and replay's ticks in delivery order, ('tick', T) or ('fix', fix), the way
    LocusCore's TickScheduler interleaves them: messages in file order (even where time steps
    back), before each message every tick earlier than it, one closing tick at the end. No
    ticks when `tick_interval` is 0 (a live service without a clock)."""
    if not tick_interval:
        return [("fix", fx) for _, fx in recording if fx is not None]
    items = []
    step = int(round(tick_interval * 1000))
    next_tick, last = None, None
    for t_seconds, fx in recording:
        t = int(round(t_seconds * 1000))
        if next_tick is None:
            next_tick = -(-t // step) * step
        last = t if last is None else max(last, t)
        while next_tick < t:
            items.append(("tick", next_tick / 1000))
            next_tick += step
        if fx is not None:
            items.append(("fix", fx))
    if last is not None and next_tick <= last + step:
        items.append(("tick", next_tick / 1000))
    return items


# ---------------------------------------------------------------------------------------------
# The rules


class RegionState:
    def __init__(self):
        self.state = None  # None (unknown), "inside", "outside"
        self.last_usable = None  # time of the last usable fix
        self.run_t0 = None  # t0 of the current run of other-side deciding fixes
        self.run_start = None  # time of the run's first fix
        self.enter_time = None
        self.dwell_done = False


def decide(service, region, fix):
    t, lat, lon, accuracy = fix
    margin = (accuracy or 0.0) + service.min_distance
    d = region.signed_distance(lat, lon)
    if d <= 0 and -d >= margin:
        return "inside", d
    if d > 0 and d >= margin:
        return "outside", d
    return None, d


def run_rules(service, recording, tick_interval=1.0, verbose=None):
    """([(t, region, kind, published, why)] in delivery order, {region id: (t, side) of the
    initial state, or None when no fix ever decided}). `why` says what decided the event."""
    states = {r.id: RegionState() for r in service.regions}
    initial = {r.id: None for r in service.regions}
    events = []

    def emit(t, region, kind, why):
        published = {"enter": region.notify_on_entry, "exit": region.notify_on_exit}.get(kind, True)
        events.append((t, region, kind, published, why))

    def check_dwell(t, region, s, source):
        if region.dwell is not None and s.state == "inside" and not s.dwell_done and t >= s.enter_time + region.dwell:
            s.dwell_done = True
            emit(t, region, "dwell", f"{source}; entered {format_time(s.enter_time)} + dwell {region.dwell:g} s")

    for kind, item in timeline(recording, tick_interval):
        if kind == "tick":
            for region in service.regions:
                check_dwell(item, region, states[region.id], "clock tick")
            continue
        t, _, _, accuracy = item
        if accuracy is not None and accuracy > service.max_accuracy:
            continue
        for region in service.regions:
            s = states[region.id]
            side, d = decide(service, region, item)
            if verbose:
                verbose(f"{format_time(t)} {region.id:>12} d={d:10.2f} {side or 'undecided':9} state={s.state}")
            if s.state is None:
                if side is not None:
                    s.state = side
                    initial[region.id] = (t, side)
                    if side == "inside":
                        s.enter_time, s.dwell_done = t, False
                        emit(t, region, "enter", f"first deciding fix, {-d:.1f} m inside")
            elif side is not None and side != s.state:
                if s.run_t0 is None:
                    s.run_t0, s.run_start = s.last_usable, t
                if t - s.run_t0 >= service.min_duration:
                    why = (f"fix {abs(d):.1f} m {side}; run since {format_time(s.run_start)[11:19]},"
                           f" t0 {format_time(s.run_t0)[11:19]}, t - t0 = {t - s.run_t0:g} s")
                    s.state, s.run_t0 = side, None
                    if side == "inside":
                        s.enter_time, s.dwell_done = s.run_start, False
                        emit(t, region, "enter", why)
                    else:
                        emit(t, region, "exit", why)
            elif side is not None:
                s.run_t0 = None
            s.last_usable = t
            check_dwell(t, region, s, "fix")
    return events, initial


def run_naive(service, fixes):
    """{region id: (changes after the first fix, fixes inside, fixes outside)} with d <= 0 as inside."""
    out = {}
    usable = [f for f in fixes if f[3] is None or f[3] <= service.max_accuracy]
    for region in service.regions:
        previous, changes, inside = None, 0, 0
        for _, lat, lon, _ in usable:
            now = region.signed_distance(lat, lon) <= 0
            inside += now
            if previous is not None and now != previous:
                changes += 1
            previous = now
        out[region.id] = (changes, inside, len(usable) - inside)
    return out


def transitions_after_initial(events, initial, region):
    """Enter/exit events of the region, not counting the enter of an initial inside state."""
    count = sum(1 for e in events if e[1] is region and e[2] in ("enter", "exit"))
    start = initial[region.id]
    return count - 1 if start and start[1] == "inside" else count


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("config")
    parser.add_argument("input")
    parser.add_argument("--service", help="only this region service (by id)")
    parser.add_argument("--tick-interval", type=float, default=1.0, help="seconds between replay's clock ticks (default 1, as locus replay; 0: no ticks)")
    parser.add_argument("--naive", action="store_true", help="also count a naive per-fix inside/outside test's transitions")
    parser.add_argument("--explain", action="store_true", help="say after each event what decided it")
    parser.add_argument("--verbose", action="store_true", help="every fix's signed distance and decision, on stderr")
    args = parser.parse_args(argv)

    recording = read_recording(args.input)
    fixes = [fx for _, fx in recording if fx is not None]
    verbose = (lambda s: print(s, file=sys.stderr)) if args.verbose else None
    for service in load_services(args.config, args.service):
        events, initial = run_rules(service, recording, args.tick_interval, verbose)
        for t, region, kind, published, why in events:
            line = f"{format_time(t)}  {service.id}  {region.id}  {kind}"
            if not published:
                option = "notify_on_entry" if kind == "enter" else "notify_on_exit"
                line = f"# {line} (not published: {option} false)"
            if args.explain:
                line = f"{line:<64} # {why}"
            print(line)
        if args.naive:
            naive = run_naive(service, fixes)
            print(f"# naive vs rules, service {service.id} ({len(fixes)} fixes):")
            for region in service.regions:
                changes, inside, outside = naive[region.id]
                transitions = transitions_after_initial(events, initial, region)
                start = initial[region.id]
                start_text = f"initial state {start[1]} at {format_time(start[0])}" if start else "no fix ever decided (state unknown throughout)"
                print(f"#   {region.id}: naive {changes} inside/outside changes after the first fix ({inside} fixes inside, {outside} outside);"
                      f" rules: {start_text}, then {transitions} enter/exit transitions")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Tests for region_reference.py: its YAML subset, geodesy, geometry and the hysteresis rules.

    /usr/bin/python3 -m unittest discover -s tools -p 'test_region_reference.py'
    /usr/bin/python3 tools/test_region_reference.py
"""

import importlib.util
import io
import json
import math
import os
import tempfile
import unittest
from contextlib import redirect_stdout
from pathlib import Path

HERE = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("region_reference", HERE / "region_reference.py")
rr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rr)

# Metres per degree of longitude on the equator: there the geodesic is the equator itself.
EQUATOR_M_PER_DEG = rr.WGS84_A * math.pi / 180
T0 = 1_000_000_000.0  # 2001-09-09T01:46:40Z


def east(metres):
    """The point `metres` east of (0, 0) along the equator, as (lat, lon)."""
    return 0.0, metres / EQUATOR_M_PER_DEG


def service(regions, **options):
    entry = {"id": "s", "type": "region", "regions": regions, **options}
    return rr.Service(entry, ".")


CIRCLE_100 = {"id": "c", "center": {"lat": 0, "lon": 0}, "radius": 100}


def fixes_at(distances, step=10.0, accuracy=None):
    """Fixes every `step` seconds at these distances east of the centre."""
    return [(T0 + i * step, *east(d), accuracy) for i, d in enumerate(distances)]


def events(svc, fixes, ticks=False):
    evs, _ = rr.run_rules(svc, [(f[0], f) for f in fixes], 1.0 if ticks else 0)
    return [(t - T0, region.id, kind, published) for t, region, kind, published, _ in evs]


class YAMLSubsetTests(unittest.TestCase):
    def test_the_documented_service_config(self):
        text = """
services:
  - id: fences
    type: region
    min_distance: 10      # default
    regions:
      - id: cafe                       # lower-case a-z 0-9 _ - (used in topics)
        center: {lat: 52.5200, lon: 13.4050}
        radius: 120
        notify_on_exit: false
        properties: {name: "Café # 1", note: 'it''s'}
      - id: park
        geometry: {type: Polygon, coordinates: [[[13.40, 52.51], [13.41, 52.51],
                                                 [13.41, 52.52], [13.40, 52.51]]]}
    file: regions.geojson
  - type: visits
    id: v
"""
        config = rr.parse_yaml(text)
        fences = config["services"][0]
        self.assertEqual(fences["min_distance"], 10)
        self.assertEqual(fences["regions"][0]["center"], {"lat": 52.52, "lon": 13.405})
        self.assertIs(fences["regions"][0]["notify_on_exit"], False)
        self.assertEqual(fences["regions"][0]["properties"], {"name": "Café # 1", "note": "it's"})
        self.assertEqual(fences["regions"][1]["geometry"]["coordinates"][0][2], [13.41, 52.52])
        self.assertEqual(fences["file"], "regions.geojson")
        self.assertEqual(config["services"][1], {"type": "visits", "id": "v"})

    def test_unsupported_constructs_are_errors_not_guesses(self):
        with self.assertRaises(rr.YAMLError):
            rr.parse_yaml("a: |\n  text\n")
        with self.assertRaises(rr.YAMLError):
            rr.parse_yaml("a: [1, 2\n")


class GeodesyTests(unittest.TestCase):
    def test_one_degree_of_the_equator(self):
        self.assertAlmostEqual(rr.vincenty_distance(0, 0, 0, 1), 111319.49079327357, delta=1e-6)

    def test_vincentys_flinders_peak_to_buninyong(self):
        # Vincenty (1975) / Geoscience Australia's worked example (GRS80 ~ WGS-84 to 0.1 mm here).
        d = rr.vincenty_distance(-37.95103342, 144.42486789, -37.65282114, 143.92649554)
        self.assertAlmostEqual(d, 54972.271, delta=2e-3)

    def test_across_the_antimeridian(self):
        self.assertAlmostEqual(rr.vincenty_distance(0, 179.5, 0, -179.5), 111319.49079327357, delta=1e-6)


class GeometryTests(unittest.TestCase):
    def square(self, lon0, lat0, lon1, lat1):
        return [[lon0, lat0], [lon1, lat0], [lon1, lat1], [lon0, lat1], [lon0, lat0]]

    def test_polygon_with_hole_boundary_inside_hole_outside(self):
        p = rr.Polygons({"type": "Polygon", "coordinates": [self.square(0, 0, 1, 1), self.square(0.4, 0.4, 0.6, 0.6)]})
        self.assertTrue(p.contains(0.2, 0.2))
        self.assertFalse(p.contains(0.5, 0.5))       # in the hole
        self.assertTrue(p.contains(0.4, 0.5))        # on the hole's edge: boundary is inside
        self.assertTrue(p.contains(0.0, 0.5))        # on the outer edge
        self.assertFalse(p.contains(0.5, 1.5))
        self.assertTrue(p.contains(0.2, 0.2 + 360))  # another longitude frame

    def test_antimeridian_ring_is_unwrapped(self):
        p = rr.Polygons({"type": "Polygon", "coordinates": [[[179, -1], [-179, -1], [-179, 1], [179, 1], [179, -1]]]})
        self.assertTrue(p.contains(0, 180))
        self.assertTrue(p.contains(0, -179.5))
        self.assertFalse(p.contains(0, 0))
        # 0.5° east of the -179 meridian, on the equator.
        self.assertAlmostEqual(p.signed_distance(0, -178.5), 0.5 * EQUATOR_M_PER_DEG, delta=1e-3)
        self.assertAlmostEqual(p.signed_distance(0, 179.5), -0.5 * EQUATOR_M_PER_DEG, delta=1e-3)

    def test_polygon_distance_uses_local_metres(self):
        # A square at 60° N: 100 m north of the north edge.
        p = rr.Polygons({"type": "Polygon", "coordinates": [self.square(10, 59.9, 10.2, 60.0)]})
        kx, ky = rr.metres_per_degree(60.0)
        self.assertAlmostEqual(p.signed_distance(60.0 + 100 / ky, 10.1), 100, delta=0.01)
        # Cross-check the metric with the geodesic: 100 m of latitude and of longitude.
        self.assertAlmostEqual(rr.vincenty_distance(60, 10, 60 + 100 / ky, 10), 100, delta=0.01)
        self.assertAlmostEqual(rr.vincenty_distance(60, 10, 60, 10 + 100 / kx), 100, delta=0.01)

    def test_multipolygon_is_any_part(self):
        p = rr.Polygons({"type": "MultiPolygon", "coordinates": [[self.square(0, 0, 1, 1)], [self.square(5, 5, 6, 6)]]})
        self.assertTrue(p.contains(5.5, 5.5))
        self.assertFalse(p.contains(3, 3))


class RuleTests(unittest.TestCase):
    def test_initial_inside_publishes_enter_initial_outside_nothing(self):
        self.assertEqual(events(service([CIRCLE_100]), fixes_at([0, 0])), [(0, "c", "enter", True)])
        self.assertEqual(events(service([CIRCLE_100]), fixes_at([500, 500])), [])

    def test_undecided_fixes_do_not_set_the_initial_state(self):
        # 95 m and 105 m are within min_distance (10 m) of the 100 m boundary.
        self.assertEqual(events(service([CIRCLE_100]), fixes_at([95, 105, 95, 50])), [(30, "c", "enter", True)])

    def test_a_short_excursion_does_not_exit(self):
        # Out for one fix 10 s after the last inside fix: t - t0 = 10 < 20.
        self.assertEqual(events(service([CIRCLE_100]), fixes_at([0, 200, 0, 0])), [(0, "c", "enter", True)])

    def test_exit_when_min_duration_has_passed_since_t0(self):
        # t0 = 10 (last usable fix before the first outside one at 20); 30 - 10 >= 20.
        evs = events(service([CIRCLE_100]), fixes_at([0, 0, 200, 200, 200]))
        self.assertEqual(evs, [(0, "c", "enter", True), (30, "c", "exit", True)])

    def test_t0_is_the_last_usable_fix_even_if_undecided(self):
        # 0 (inside), 10 (undecided 105 m), 20 out, 30 out: t0 = 10, so 30 - 10 = 20 confirms.
        evs = events(service([CIRCLE_100]), fixes_at([0, 105, 200, 200]))
        self.assertEqual(evs, [(0, "c", "enter", True), (30, "c", "exit", True)])

    def test_undecided_fixes_neither_cancel_nor_confirm(self):
        # Run starts at 20 (t0 = 10); 30 undecided; 40 out confirms (40 - 10 >= 20)...
        evs = events(service([CIRCLE_100]), fixes_at([0, 0, 200, 100, 200]))
        self.assertEqual(evs, [(0, "c", "enter", True), (40, "c", "exit", True)])
        # ...whereas an inside fix at 30 cancels the run: the new run starts at 40 (t0 = 30).
        evs = events(service([CIRCLE_100]), fixes_at([0, 0, 200, 0, 200, 200]))
        self.assertEqual(evs, [(0, "c", "enter", True), (50, "c", "exit", True)])

    def test_accuracy_widens_the_undecided_band_and_bad_fixes_are_ignored(self):
        # Accuracy 50: deciding inside needs 60 m inside, i.e. <= 40 m from the centre.
        self.assertEqual(events(service([CIRCLE_100]), fixes_at([50, 50], accuracy=50.0)), [])
        self.assertEqual(events(service([CIRCLE_100]), fixes_at([40], accuracy=50.0)), [(0, "c", "enter", True)])
        # Accuracy above max_accuracy: ignored, not even as t0. Usable, the fix at 20 (150 m,
        # undecided) would be t0 and the exit would wait until 60.
        fixes = fixes_at([0, 0]) + [(T0 + 20, *east(150), 150.0)] + [(T0 + t, *east(500), None) for t in (30, 40, 50, 60)]
        evs = events(service([CIRCLE_100], min_duration=35), fixes)
        self.assertEqual(evs, [(0, "c", "enter", True), (50, "c", "exit", True)])

    def test_dwell_once_per_stay_on_a_tick(self):
        region = dict(CIRCLE_100, dwell=25)
        evs = events(service([region]), fixes_at([0, 0, 0, 0, 0, 0]), ticks=True)
        self.assertEqual(evs, [(0, "c", "enter", True), (25, "c", "dwell", True)])
        # Without ticks the next fix at or after 25 s publishes it.
        evs = events(service([region]), fixes_at([0, 0, 0, 0, 0, 0]))
        self.assertEqual(evs, [(0, "c", "enter", True), (30, "c", "dwell", True)])

    def test_no_dwell_after_exit_and_a_new_one_after_reentry(self):
        region = dict(CIRCLE_100, dwell=25)
        evs = events(service([region]), fixes_at([0, 200, 200, 200, 0, 0, 0, 0, 0]), ticks=True)
        # Exit at 20 (t0 = 0) before the first stay's dwell was due; re-enter at 50 (t0 = 30),
        # first seen inside at 40: the dwell is due 25 s after that, at 65.
        self.assertEqual(evs, [(0, "c", "enter", True), (20, "c", "exit", True), (50, "c", "enter", True), (65, "c", "dwell", True)])

    def test_suppressed_notifications_are_marked(self):
        region = dict(CIRCLE_100, notify_on_exit=False)
        evs = events(service([region]), fixes_at([0, 200, 200, 200]))
        self.assertEqual(evs, [(0, "c", "enter", True), (20, "c", "exit", False)])

    def test_naive_counts_every_boundary_crossing(self):
        fixes = fixes_at([99, 101, 99, 101, 99])
        self.assertEqual(rr.run_naive(service([CIRCLE_100]), fixes), {"c": (4, 3, 2)})
        self.assertEqual(events(service([CIRCLE_100]), fixes), [])


class TimelineTests(unittest.TestCase):
    def test_ticks_like_replays_tick_scheduler(self):
        # Messages at 0.5, 2 and 4: a tick goes out before the first message later than it, so
        # the tick at 2 follows the message at 2; the tick at 4 is the closing tick.
        fixes = [(0.5, 0, 0, None), (2.0, 0, 0, None), (4.0, 0, 0, None)]
        items = rr.timeline([(f[0], f) for f in fixes], 1.0)
        kinds = [(k, v if k == "tick" else v[0]) for k, v in items]
        self.assertEqual(kinds, [("fix", 0.5), ("tick", 1.0), ("fix", 2.0), ("tick", 2.0), ("tick", 3.0), ("fix", 4.0), ("tick", 4.0)])

    def test_file_order_is_kept_when_time_steps_back(self):
        # A receiver's first epoch stamped .71, the next .408 (gpsd-tests telit-he910.log);
        # a non-fix message (None) still schedules ticks.
        recording = [(3.71, (3.71, 0, 0, None)), (3.408, (3.408, 0, 0, None)), (5.5, None), (6.0, (6.0, 0, 0, None))]
        kinds = [(k, v if k == "tick" else v[0]) for k, v in rr.timeline(recording, 1.0)]
        self.assertEqual(kinds, [("fix", 3.71), ("fix", 3.408), ("tick", 4.0), ("tick", 5.0), ("fix", 6.0), ("tick", 6.0)])


class CommandLineTests(unittest.TestCase):
    def test_config_and_geojson_file_end_to_end(self):
        with tempfile.TemporaryDirectory() as d:
            Path(d, "config.yaml").write_text(
                "services:\n  - id: f\n    type: region\n    regions:\n"
                "      - id: c\n        center: {lat: 0, lon: 0}\n        radius: 100\n"
                "    file: more.geojson\n")
            Path(d, "more.geojson").write_text(json.dumps({"type": "FeatureCollection", "features": [
                {"type": "Feature", "properties": {"id": "p", "radius": 100, "notify_on_entry": False},
                 "geometry": {"type": "Point", "coordinates": [east(1000)[1], 0]}}]}))
            lines = []
            for i, dist in enumerate([0, 0, 1000, 1000, 1000]):
                lat, lon = east(dist)
                t = rr.format_time(T0 + 10 * i)
                lines.append(json.dumps({"topic": "obs.fix.gps0", "envelope": {"type": "obs.fix", "version": 1, "producer": "gps0",
                                         "seq": i + 1, "time": t, "payload": {"source": "gps0", "mode": "3d", "lat": lat, "lon": lon}}}))
            Path(d, "input.jsonl").write_text("\n".join(lines) + "\n")
            out = io.StringIO()
            with redirect_stdout(out):
                rr.main([os.path.join(d, "config.yaml"), os.path.join(d, "input.jsonl")])
            self.assertEqual(out.getvalue().splitlines(), [
                "2001-09-09T01:46:40.000Z  f  c  enter",
                "2001-09-09T01:47:10.000Z  f  c  exit",
                "# 2001-09-09T01:47:10.000Z  f  p  enter (not published: notify_on_entry false)",
            ])


GOLDEN = HERE.parent / "Tests" / "Golden"


def golden_region_cases():
    return sorted(d for d in GOLDEN.glob("region-*") if (d / "expected.jsonl").exists())


class GoldenCrossCheckTests(unittest.TestCase):
    """The service's golden output (expected.jsonl, written by locus replay) against this
    independent reference: same events at the same times. Events at one instant are compared as
    a set, since the service orders them by region id and the reference by config order."""

    def test_every_region_golden_case_matches_the_reference(self):
        cases = golden_region_cases()
        self.assertGreaterEqual(len(cases), 4)
        for case in cases:
            with self.subTest(case=case.name):
                recording = rr.read_recording(case / "input.jsonl")
                expected = []
                for service in rr.load_services(case / "config.yaml"):
                    events, _ = rr.run_rules(service, recording, 1.0)
                    expected += [(rr.format_time(t), service.id, region.id, kind)
                                 for t, region, kind, published, _ in events if published]
                actual = []
                for line in (case / "expected.jsonl").read_text().splitlines():
                    envelope = json.loads(line)["envelope"]
                    if envelope["type"] in ("region.enter", "region.exit", "region.dwell"):
                        p = envelope["payload"]
                        actual.append((envelope["time"], p["monitor"], p["region"], envelope["type"].split(".")[1]))
                self.assertEqual(sorted(actual), sorted(expected))
                # Within each instant the order may differ, never across instants.
                self.assertEqual([a[0] for a in actual], [e[0] for e in sorted(expected)])

    def test_jitter_cases_flap_naively_and_never_with_the_defaults(self):
        for name in ("region-jitter", "region-jitter-ais"):
            with self.subTest(case=name):
                case = GOLDEN / name
                recording = rr.read_recording(case / "input.jsonl")
                fixes = [fx for _, fx in recording if fx is not None]
                service = rr.load_services(case / "config.yaml")[0]
                naive = rr.run_naive(service, fixes)
                self.assertGreaterEqual(naive["edge"][0], 5, "the boundary must run through the scatter")
                published = [l for l in (case / "expected.jsonl").read_text().splitlines()
                             if '"region":"edge"' in l]
                self.assertEqual(published, [], "the service flapped on a stationary receiver")


if __name__ == "__main__":
    unittest.main()

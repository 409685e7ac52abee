#!/usr/bin/env python3
"""Self-test for validate_messages.py: good lines pass, each deliberately broken line is caught.

    /usr/bin/python3 tools/test_validate_messages.py

Every broken case names a fragment of the problem the validator must report, so a case that
fails for an unrelated reason (a typo in the test itself) does not count as caught.
"""

import copy
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SCRIPT = HERE / "validate_messages.py"
RECORDING = ROOT / "data" / "recordings" / "cerknica-walk.jsonl"

spec = importlib.util.spec_from_file_location("validate_messages", SCRIPT)
vm = importlib.util.module_from_spec(spec)
spec.loader.exec_module(vm)
validator = vm.MessageValidator([vm.DEFAULT_SCHEMAS])


def line(topic, type_, payload, **envelope):
    env = {"type": type_, "version": 1, "producer": "gps0", "seq": 1,
           "time": "2024-05-17T08:00:00.100Z", "payload": payload}
    env.update(envelope)
    return {"topic": topic, "envelope": env}


FULL_FIX = {
    "source": "gps0", "mode": "3d", "lat": 0.000123456, "lon": -0.000654321, "alt_msl": 12.5,
    "alt_hae": 60.25, "speed": 1.4, "course": 359.99, "heading": 0, "quality": "rtk_fixed",
    "satellites_used": 14, "hdop": 0.7, "vdop": 1.1, "pdop": 1.3, "h_accuracy": 0.02,
    "v_accuracy": 0.035, "speed_accuracy": 0.05, "course_accuracy": 1.5,
}
SKY = {"source": "gps0", "in_view": 2, "used": 1, "satellites": [
    {"constellation": "gps", "prn": 5, "elevation": 45.5, "azimuth": 270.1, "snr": 41, "used": True,
     "signal": "L1C/A"},
    {"constellation": "galileo", "prn": 11, "used": False},
]}
BLE = {"source": "hci0", "address": "C0:FF:EE:00:11:22", "address_type": "random", "rssi": -67,
       "tx_power": -4, "name": "tag", "service_uuids": ["feaa", "6e400001-b5a3-f393-e0a9-e50e24dcca9e"],
       "manufacturer_data": [{"company_id": 76, "data": "0215aa"}],
       "service_data": [{"uuid": "feaa", "data": "00e8"}],
       "beacon": {"format": "ibeacon", "uuid": "f7826da6-4fa2-4e98-8024-bc5b71e0893e", "major": 1,
                  "minor": 65535, "measured_power": -59}}
EDDYSTONE = {"source": "hci0", "address": "AA:BB:CC:DD:EE:FF", "rssi": -80,
             "beacon": {"format": "eddystone_uid", "namespace": "00112233445566778899",
                        "instance": "aabbccddeeff", "measured_power": -41}}
TICK = {"basis": "recorded", "interval": 1}
STATUS = {"plugin": "gps0", "kind": "source", "plugin_type": "exec", "state": "restarting",
          "reason": "exited with status 1", "restarts": 2, "retry_in": 4.5}
ALERT = {"source": "gps0", "state": "over", "speed": 13.4, "limit": 13.3}
UPDATE = {"source": "gps0", "mode": "3d", "lat": 45.772089791, "lon": 14.357567383, "alt_msl": 550.973,
          "alt_hae": 596.25, "speed": 0.172, "course": 217.02, "heading": 0, "quality": "dgps", "h_accuracy": 5,
          "v_accuracy": 8.5, "speed_accuracy": 0.3, "course_accuracy": 12.5, "is_stationary": False}
LOC_STATUS = {"condition": "source_disconnected", "active": True, "source": "gps0",
              "reason": "gps0 reported disconnected: device hung up"}
PAUSED = {"source": "gps0", "lat": 45.77, "lon": 14.36, "h_accuracy": 5, "stationary_for": 61}
RESUMED = {"source": "gps0", "lat": 45.77, "lon": 14.36, "h_accuracy": 5, "distance": 12.4, "paused_for": 300.5}
SIGNIFICANT = {"source": "gps0", "lat": 45.77, "lon": 14.36, "alt_msl": 550, "h_accuracy": 5, "distance": 612.3,
               "elapsed": 301}
ARRIVAL = {"source": "gps0", "arrival": "2024-05-17T07:55:00.100Z", "lat": 45.7712345, "lon": -179.9999999,
           "h_accuracy": 17.5, "fixes": 31}
DEPARTURE = dict(ARRIVAL, departure="2024-05-17T08:55:00.100Z", duration=3600)
REGION_ENTER = {"region": "home", "monitor": "fences", "state": "satisfied", "previous_state": "unsatisfied",
                "source": "gps0", "fix_time": "2024-05-17T08:00:00.100Z", "lat": 45.77, "lon": 14.36, "h_accuracy": 5,
                "distance": 48.21, "confidence": 1, "since": "2024-05-17T07:59:40.100Z", "assumed": False,
                "detected_after_restart": False, "properties": {"name": "Home", "floor": 2}}
REGION_EXIT = dict(REGION_ENTER, state="unsatisfied", previous_state="satisfied", distance=-30.5, confidence=0.9999)
REGION_DWELL = dict(REGION_ENTER, previous_state="satisfied", dwell=300)
REGION_STATE = {"region": "home", "monitor": "fences", "state": "unknown", "previous_state": "unknown",
                "assumed": False, "detected_after_restart": False, "properties": {}}

GOOD = {
    "fix with every field": line("obs.fix.gps0", "obs.fix", FULL_FIX),
    "fix mode none without position": line("obs.fix.gps0", "obs.fix", {"source": "gps0", "mode": "none"}),
    "2d fix": line("obs.fix.gps0", "obs.fix", {"source": "gps0", "mode": "2d", "lat": -90, "lon": 180}),
    "sky view": line("obs.sky.gps0", "obs.sky", SKY),
    "sky view with no satellites": line("obs.sky.gps0", "obs.sky", {"source": "gps0", "in_view": 0, "used": 0,
                                                                   "satellites": []}),
    "ble advertisement with ibeacon": line("obs.ble.hci0", "obs.ble", BLE, producer="hci0"),
    "ble eddystone uid": line("obs.ble.hci0", "obs.ble", EDDYSTONE, producer="hci0"),
    "minimal ble": line("obs.ble.hci0", "obs.ble", {"source": "hci0", "address": "00:00:00:00:00:00",
                                                    "rssi": -127}),
    "clock tick": line("clock.tick", "clock.tick", TICK, producer="replay"),
    "plugin status": line("status.gps0", "status.plugin", STATUS, producer="locus"),
    "minimal status": line("status.hub", "status.plugin", {"plugin": "hub", "kind": "hub",
                                                           "plugin_type": "hub", "state": "running"}),
    "speed alert": line("example.speed_alert.speedy", "example.speed_alert", ALERT, producer="speedy"),
    "location update": line("location.update.here", "location.update", UPDATE, producer="here"),
    "minimal 2d location update": line("location.update.here", "location.update",
                                       {"source": "phone", "mode": "2d", "lat": -90, "lon": 180, "is_stationary": True},
                                       producer="here"),
    "location status": line("location.status.here", "location.status", LOC_STATUS, producer="here"),
    "location status cleared without source": line("location.status.here", "location.status",
                                                   {"condition": "location_unavailable", "active": False,
                                                    "reason": "usable fix from a source"}, producer="here"),
    "location paused": line("location.paused.here", "location.paused", PAUSED, producer="here"),
    "location resumed": line("location.resumed.here", "location.resumed", RESUMED, producer="here"),
    "significant location": line("location.significant.moves", "location.significant", SIGNIFICANT, producer="moves"),
    "first significant location": line("location.significant.moves", "location.significant",
                                       {"source": "gps0", "lat": 45.77, "lon": 14.36}, producer="moves"),
    "visit arrival": line("visit.arrival.visits", "visit.arrival", ARRIVAL, producer="visits"),
    "visit departure": line("visit.departure.visits", "visit.departure", DEPARTURE, producer="visits"),
    "region enter": line("region.enter.home", "region.enter", REGION_ENTER, producer="fences"),
    "region exit after restart": line("region.exit.home", "region.exit", dict(REGION_EXIT, detected_after_restart=True),
                                      producer="fences"),
    "region dwell": line("region.dwell.home", "region.dwell", REGION_DWELL, producer="fences"),
    "region state before any fix": line("region.state.home", "region.state", REGION_STATE, producer="fences"),
    "region state assumed with fix": line("region.state.home", "region.state",
                                          dict(REGION_ENTER, previous_state="satisfied", assumed=True), producer="fences"),
    "big seq": line("clock.tick", "clock.tick", TICK, seq=9223372036854775807),
    "with topic_seq": line("clock.tick", "clock.tick", TICK, seq=42, topic_seq=40),
    "big topic_seq": line("clock.tick", "clock.tick", TICK, topic_seq=9223372036854775807),
    "after a gap in seq": dict(line("clock.tick", "clock.tick", TICK, seq=5),
                               gap={"producer": "gps0", "after": 2, "seq": 5, "missed": 2}),
    "after a restart of a topic": dict(line("clock.tick", "clock.tick", TICK, topic_seq=1),
                                       gap={"producer": "gps0", "topic": "clock.tick", "after": 7, "seq": 1,
                                            "missed": 0, "restarted": True}),
    "255-byte topic": line("example.speed_alert." + "a" * 235, "example.speed_alert", ALERT),
}


def mutate(base, path, value=None, delete=False):
    """A copy of `base` with the value at `path` (keys/indexes) replaced or deleted."""
    out = copy.deepcopy(base)
    target = out
    for key in path[:-1]:
        target = target[key]
    if delete:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return out


def fix(**changes):
    payload = {"source": "gps0", "mode": "3d", "lat": 1.5, "lon": 2.5}
    for k, v in changes.items():
        if v is DELETE:
            payload.pop(k)
        else:
            payload[k] = v
    return line("obs.fix.gps0", "obs.fix", payload)


DELETE = object()
E = ["envelope"]
P = ["envelope", "payload"]
SKY_LINE = GOOD["sky view"]
BLE_LINE = GOOD["ble advertisement with ibeacon"]
TICK_LINE = GOOD["clock tick"]
STATUS_LINE = GOOD["plugin status"]
ALERT_LINE = GOOD["speed alert"]
UPDATE_LINE = GOOD["location update"]
LOC_STATUS_LINE = GOOD["location status"]
PAUSED_LINE = GOOD["location paused"]
RESUMED_LINE = GOOD["location resumed"]
SIGNIFICANT_LINE = GOOD["significant location"]
ARRIVAL_LINE = GOOD["visit arrival"]
DEPARTURE_LINE = GOOD["visit departure"]
REGION_ENTER_LINE = GOOD["region enter"]
REGION_DWELL_LINE = GOOD["region dwell"]
FIX_LINE = fix()

# (name, line as text or object, fragment the reported problem must contain)
BAD = [
    # the recording line
    ("not JSON", '{"topic":"clock.tick",', "not valid JSON"),
    ("NaN", '{"topic":"clock.tick","envelope":{"type":"clock.tick","version":1,"producer":"r","seq":1,'
            '"time":"2024-05-17T08:00:00.100Z","payload":{"basis":"wall","interval":NaN}}}', "NaN is not JSON"),
    ("duplicate key", '{"topic":"clock.tick","topic":"clock.tick","envelope":{}}', "duplicate key"),
    ("line is an array", "[1,2]", "must be a JSON object"),
    ("topic missing", {"envelope": TICK_LINE["envelope"]}, '"topic" is missing'),
    ("envelope missing", {"topic": "clock.tick"}, '"envelope" is missing'),
    ("envelope is a string", {"topic": "clock.tick", "envelope": "{}"}, '"envelope" must be an object'),
    ("extra key in line", dict(TICK_LINE, received="now"), "unexpected key(s) in the recording line"),
    # topic grammar
    ("upper-case topic", mutate(FIX_LINE, ["topic"], "obs.fix.GPS0"), "bad topic"),
    ("empty segment", mutate(FIX_LINE, ["topic"], "obs..fix"), "bad topic"),
    ("trailing dot", mutate(FIX_LINE, ["topic"], "obs.fix."), "bad topic"),
    ("space in topic", mutate(FIX_LINE, ["topic"], "obs.fix.gps 0"), "bad topic"),
    ("topic over 255 bytes", mutate(ALERT_LINE, ["topic"], "example.speed_alert." + "a" * 236), "bad topic"),
    ("newline after topic", mutate(FIX_LINE, ["topic"], "obs.fix.gps0\n"), "bad topic"),
    # topic family and type
    ("fix on a sky topic", mutate(FIX_LINE, ["topic"], "obs.sky.gps0"), "does not fit the type"),
    ("fix topic with extra segment", mutate(FIX_LINE, ["topic"], "obs.fix.gps0.x"), "does not fit the type"),
    ("fix topic without source", mutate(FIX_LINE, ["topic"], "obs.fix"), "does not fit the type"),
    ("topic source differs from payload", mutate(FIX_LINE, ["topic"], "obs.fix.gps1"),
     "differs from payload.source"),
    ("tick on a sub-topic", mutate(TICK_LINE, ["topic"], "clock.tick.x"), "does not fit the type"),
    ("status on plugin topic", mutate(STATUS_LINE, ["topic"], "status.plugin.gps0"), "does not fit the type"),
    ("status for another plugin", mutate(STATUS_LINE, ["topic"], "status.gps1"), "differs from payload.plugin"),
    ("speed alert without service id", mutate(ALERT_LINE, ["topic"], "example.speed_alert"),
     "does not fit the type"),
    ("sky on a fix topic", mutate(SKY_LINE, ["topic"], "obs.fix.gps0"), "does not fit the type"),
    ("unknown type", mutate(TICK_LINE, E + ["type"], "clock.tock"), "unknown event type 'clock.tock'"),
    ("unknown version", mutate(TICK_LINE, E + ["version"], 2), "version 2 has no schema"),
    # envelope fields
    *[(f"envelope without {k}", mutate(TICK_LINE, E + [k], delete=True), f"'{k}' is a required property")
      for k in ("type", "version", "producer", "seq", "time", "payload")],
    ("extra envelope key", mutate(TICK_LINE, E + ["topic"], "clock.tick"), "envelope: unexpected key(s) 'topic'"),
    ("type not a string", mutate(TICK_LINE, E + ["type"], 7), "envelope.type: 7 is not of type 'string'"),
    ("version 0", mutate(TICK_LINE, E + ["version"], 0), "envelope.version: 0 is less than the minimum"),
    ("version as text", mutate(TICK_LINE, E + ["version"], "1"), "envelope.version: '1' is not of type"),
    ("seq 0", mutate(TICK_LINE, E + ["seq"], 0), "envelope.seq: 0 is less than the minimum of 1"),
    ("seq with a fraction", mutate(TICK_LINE, E + ["seq"], 3.0), "envelope.seq: 3.0 is not of type 'integer'"),
    ("seq negative", mutate(TICK_LINE, E + ["seq"], -1), "envelope.seq"),
    ("seq beyond int64", mutate(TICK_LINE, E + ["seq"], 2 ** 63), "envelope.seq"),
    ("topic_seq 0", mutate(TICK_LINE, E + ["topic_seq"], 0), "envelope.topic_seq: 0 is less than the minimum of 1"),
    ("topic_seq with a fraction", mutate(TICK_LINE, E + ["topic_seq"], 3.0),
     "envelope.topic_seq: 3.0 is not of type 'integer'"),
    ("topic_seq as text", mutate(TICK_LINE, E + ["topic_seq"], "3"), "envelope.topic_seq: '3' is not of type"),
    ("topic_seq null", mutate(TICK_LINE, E + ["topic_seq"], None), "envelope.topic_seq: None is not of type"),
    ("topic_seq beyond int64", mutate(TICK_LINE, E + ["topic_seq"], 2 ** 63), "envelope.topic_seq"),
    ("gap with a bad topic", dict(TICK_LINE, gap={"producer": "gps0", "topic": "Clock", "after": 1, "seq": 3,
                                                  "missed": 1}), '"gap".topic must be a topic'),
    ("gap with an unknown key", dict(TICK_LINE, gap={"producer": "gps0", "after": 1, "seq": 3, "missed": 1,
                                                     "lost": 1}), "unexpected key(s) in \"gap\": 'lost'"),
    ("producer upper case", mutate(TICK_LINE, E + ["producer"], "GPS0"), "envelope.producer: 'GPS0' does not match"),
    ("producer empty", mutate(TICK_LINE, E + ["producer"], ""), "envelope.producer"),
    ("time without milliseconds", mutate(TICK_LINE, E + ["time"], "2024-05-17T08:00:00Z"), "envelope.time"),
    ("time with offset", mutate(TICK_LINE, E + ["time"], "2024-05-17T10:00:00.000+02:00"), "envelope.time"),
    ("time with microseconds", mutate(TICK_LINE, E + ["time"], "2024-05-17T08:00:00.000000Z"), "envelope.time"),
    ("time on 30 February", mutate(TICK_LINE, E + ["time"], "2024-02-30T08:00:00.000Z"), "is not a 'date-time'"),
    ("time at hour 24", mutate(TICK_LINE, E + ["time"], "2024-05-17T24:00:00.000Z"), "is not a 'date-time'"),
    ("time as a number", mutate(TICK_LINE, E + ["time"], 1715932800100), "envelope.time"),
    ("payload an array", mutate(TICK_LINE, E + ["payload"], []), "envelope.payload: [] is not of type 'object'"),
    ("payload null", mutate(TICK_LINE, E + ["payload"], None), "envelope.payload: None is not of type 'object'"),
    ("body over the hub limit", mutate(STATUS_LINE, P + ["reason"], "x" * 262144), "the hub drops bodies"),
    # obs.fix
    ("fix without source", fix(source=DELETE), "'source' is a required property"),
    ("fix without mode", fix(mode=DELETE), "'mode' is a required property"),
    ("fix mode in capitals", fix(mode="3D"), "payload.mode: '3D' is not one of"),
    ("3d fix without lat", fix(lat=DELETE), "'lat' is a required property"),
    ("2d fix without lon", fix(mode="2d", lon=DELETE), "'lon' is a required property"),
    ("lat 91", fix(lat=91), "payload.lat: 91 is greater than the maximum of 90"),
    ("lat as text", fix(lat="1.5"), "payload.lat: '1.5' is not of type 'number'"),
    ("lon -180.5", fix(lon=-180.5), "payload.lon: -180.5 is less than the minimum of -180"),
    ("course 360", fix(course=360), "payload.course: 360 is greater than or equal to the maximum of 360"),
    ("negative course", fix(course=-1), "payload.course"),
    ("heading 400", fix(heading=400), "payload.heading"),
    ("negative speed", fix(speed=-0.1), "payload.speed"),
    ("negative accuracy", fix(h_accuracy=-3), "payload.h_accuracy"),
    ("negative hdop", fix(hdop=-1), "payload.hdop"),
    ("typo in a key", fix(h_acuracy=3), "payload: unexpected key(s) 'h_acuracy'"),
    ("null optional field", fix(alt_msl=None), "payload.alt_msl: None is not of type 'number'"),
    ("fractional satellite count", fix(satellites_used=7.5), "payload.satellites_used: 7.5 is not of type 'integer'"),
    ("satellite count written 7.0", fix(satellites_used=7.0), "payload.satellites_used: 7.0 is not of type 'integer'"),
    ("unknown quality", fix(quality="rtk"), "payload.quality: 'rtk' is not one of"),
    ("source with a dot", mutate(fix(source="gps.0"), ["topic"], "obs.fix.gps0"), "payload.source: 'gps.0' does not match"),
    # obs.sky
    ("sky without source", mutate(SKY_LINE, P + ["source"], delete=True), "'source' is a required property"),
    ("in_view wrong", mutate(SKY_LINE, P + ["in_view"], 3), "in_view is 3 but satellites has 2 entries"),
    ("used wrong", mutate(SKY_LINE, P + ["used"], 2), "used is 2 but 1 satellites have used=true"),
    ("constellation in capitals", mutate(SKY_LINE, P + ["satellites", 0, "constellation"], "GPS"),
     "payload.satellites[0].constellation: 'GPS' is not one of"),
    ("satellite without prn", mutate(SKY_LINE, P + ["satellites", 1, "prn"], delete=True),
     "payload.satellites[1]: 'prn' is a required property"),
    ("azimuth 360", mutate(SKY_LINE, P + ["satellites", 0, "azimuth"], 360), "payload.satellites[0].azimuth"),
    ("elevation 91", mutate(SKY_LINE, P + ["satellites", 0, "elevation"], 91), "payload.satellites[0].elevation"),
    ("negative snr", mutate(SKY_LINE, P + ["satellites", 0, "snr"], -1), "payload.satellites[0].snr"),
    ("used as text", mutate(SKY_LINE, P + ["satellites", 0, "used"], "yes"), "payload.satellites[0].used"),
    ("satellites not a list", mutate(SKY_LINE, P + ["satellites"], {}), "payload.satellites"),
    # obs.ble
    ("ble without address", mutate(BLE_LINE, P + ["address"], delete=True), "'address' is a required property"),
    ("ble without rssi", mutate(BLE_LINE, P + ["rssi"], delete=True), "'rssi' is a required property"),
    ("address in lower case", mutate(BLE_LINE, P + ["address"], "c0:ff:ee:00:11:22"), "payload.address"),
    ("address without colons", mutate(BLE_LINE, P + ["address"], "C0FFEE001122"), "payload.address"),
    ("unknown address type", mutate(BLE_LINE, P + ["address_type"], "static"), "payload.address_type"),
    ("fractional rssi", mutate(BLE_LINE, P + ["rssi"], -67.5), "payload.rssi: -67.5 is not of type 'integer'"),
    ("rssi out of range", mutate(BLE_LINE, P + ["rssi"], -300), "payload.rssi"),
    ("odd-length hex", mutate(BLE_LINE, P + ["manufacturer_data", 0, "data"], "0215a"),
     "payload.manufacturer_data[0].data"),
    ("upper-case hex", mutate(BLE_LINE, P + ["manufacturer_data", 0, "data"], "0215AA"),
     "payload.manufacturer_data[0].data"),
    ("company id too big", mutate(BLE_LINE, P + ["manufacturer_data", 0, "company_id"], 70000),
     "payload.manufacturer_data[0].company_id"),
    ("service data without uuid", mutate(BLE_LINE, P + ["service_data", 0, "uuid"], delete=True),
     "payload.service_data[0]: 'uuid' is a required property"),
    ("bad service uuid", mutate(BLE_LINE, P + ["service_uuids", 0], "FEAA"), "payload.service_uuids[0]"),
    ("unknown beacon format", mutate(BLE_LINE, P + ["beacon", "format"], "eddystone"), "payload.beacon.format"),
    ("beacon without format", mutate(BLE_LINE, P + ["beacon", "format"], delete=True),
     "payload.beacon: 'format' is a required property"),
    ("minor too big", mutate(BLE_LINE, P + ["beacon", "minor"], 65536), "payload.beacon.minor"),
    ("short eddystone namespace", mutate(GOOD["ble eddystone uid"], P + ["beacon", "namespace"], "0011"),
     "payload.beacon.namespace"),
    ("beacon null", mutate(BLE_LINE, P + ["beacon"], None), "payload.beacon: None is not of type 'object'"),
    # clock.tick
    ("tick without basis", mutate(TICK_LINE, P + ["basis"], delete=True), "'basis' is a required property"),
    ("tick without interval", mutate(TICK_LINE, P + ["interval"], delete=True), "'interval' is a required property"),
    ("unknown tick basis", mutate(TICK_LINE, P + ["basis"], "system"), "payload.basis: 'system' is not one of"),
    ("zero tick interval", mutate(TICK_LINE, P + ["interval"], 0), "payload.interval: 0 is less than or equal"),
    # status.plugin
    *[(f"status without {k}", mutate(STATUS_LINE, P + [k], delete=True), f"'{k}' is a required property")
      for k in ("plugin", "kind", "plugin_type", "state")],
    ("unknown state", mutate(STATUS_LINE, P + ["state"], "ok"), "payload.state: 'ok' is not one of"),
    ("unknown kind", mutate(STATUS_LINE, P + ["kind"], "plugin"), "payload.kind: 'plugin' is not one of"),
    ("negative restarts", mutate(STATUS_LINE, P + ["restarts"], -1), "payload.restarts"),
    ("negative retry_in", mutate(STATUS_LINE, P + ["retry_in"], -1), "payload.retry_in"),
    ("null reason", mutate(STATUS_LINE, P + ["reason"], None), "payload.reason: None is not of type 'string'"),
    # example.speed_alert
    *[(f"speed alert without {k}", mutate(ALERT_LINE, P + [k], delete=True), f"'{k}' is a required property")
      for k in ("source", "state", "speed", "limit")],
    ("alert state above", mutate(ALERT_LINE, P + ["state"], "above"), "payload.state: 'above' is not one of"),
    ("alert speed as text", mutate(ALERT_LINE, P + ["speed"], "13.4"), "payload.speed: '13.4' is not of type"),
    ("negative limit", mutate(ALERT_LINE, P + ["limit"], -1), "payload.limit"),
    ("alert extra key", mutate(ALERT_LINE, P + ["hysteresis"], 0.5), "payload: unexpected key(s) 'hysteresis'"),
    # location.update
    *[(f"location update without {k}", mutate(UPDATE_LINE, P + [k], delete=True), f"'{k}' is a required property")
      for k in ("source", "mode", "lat", "lon", "is_stationary")],
    ("location update without position", mutate(UPDATE_LINE, P + ["mode"], "none"), "payload.mode: 'none' is not one of"),
    ("is_stationary as text", mutate(UPDATE_LINE, P + ["is_stationary"], "no"), "payload.is_stationary: 'no' is not of type"),
    ("update course 360", mutate(UPDATE_LINE, P + ["course"], 360), "payload.course"),
    ("update negative accuracy", mutate(UPDATE_LINE, P + ["h_accuracy"], -1), "payload.h_accuracy"),
    ("update null speed", mutate(UPDATE_LINE, P + ["speed"], None), "payload.speed: None is not of type 'number'"),
    ("update with a fix-only key", mutate(UPDATE_LINE, P + ["hdop"], 0.9), "payload: unexpected key(s) 'hdop'"),
    ("update without service id", mutate(UPDATE_LINE, ["topic"], "location.update"), "does not fit the type"),
    ("update on the status topic", mutate(UPDATE_LINE, ["topic"], "location.status.here"), "does not fit the type"),
    # location.status
    *[(f"location status without {k}", mutate(LOC_STATUS_LINE, P + [k], delete=True), f"'{k}' is a required property")
      for k in ("condition", "active", "reason")],
    ("unknown condition", mutate(LOC_STATUS_LINE, P + ["condition"], "stationary"), "payload.condition: 'stationary' is not one of"),
    ("source_disconnected without source", mutate(LOC_STATUS_LINE, P + ["source"], delete=True),
     "'source' is a required property"),
    ("active as text", mutate(LOC_STATUS_LINE, P + ["active"], "true"), "payload.active: 'true' is not of type 'boolean'"),
    ("empty reason", mutate(LOC_STATUS_LINE, P + ["reason"], ""), "payload.reason"),
    ("status source upper case", mutate(LOC_STATUS_LINE, P + ["source"], "GPS0"), "payload.source: 'GPS0' does not match"),
    # location.paused / location.resumed
    ("paused without stationary_for", mutate(PAUSED_LINE, P + ["stationary_for"], delete=True),
     "'stationary_for' is a required property"),
    ("negative stationary_for", mutate(PAUSED_LINE, P + ["stationary_for"], -1), "payload.stationary_for"),
    ("paused lat 91", mutate(PAUSED_LINE, P + ["lat"], 91), "payload.lat: 91 is greater than the maximum of 90"),
    ("resumed without paused_for", mutate(RESUMED_LINE, P + ["paused_for"], delete=True), "'paused_for' is a required property"),
    ("resumed negative distance", mutate(RESUMED_LINE, P + ["distance"], -0.5), "payload.distance"),
    ("resumed on the paused topic", mutate(RESUMED_LINE, ["topic"], "location.paused.here"), "does not fit the type"),
    # location.significant
    ("significant distance without elapsed", mutate(SIGNIFICANT_LINE, P + ["elapsed"], delete=True),
     "'elapsed' is a dependency of 'distance'"),
    ("significant without lon", mutate(SIGNIFICANT_LINE, P + ["lon"], delete=True), "'lon' is a required property"),
    ("significant negative distance", mutate(SIGNIFICANT_LINE, P + ["distance"], -1), "payload.distance"),
    ("significant extra key", mutate(SIGNIFICANT_LINE, P + ["speed"], 1), "payload: unexpected key(s) 'speed'"),
    # visit.arrival, visit.departure
    *[(f"visit arrival without {k}", mutate(ARRIVAL_LINE, P + [k], delete=True), f"'{k}' is a required property")
      for k in ("source", "arrival", "lat", "lon", "h_accuracy", "fixes")],
    *[(f"visit departure without {k}", mutate(DEPARTURE_LINE, P + [k], delete=True), f"'{k}' is a required property")
      for k in ("arrival", "fixes", "departure", "duration")],
    ("arrival without milliseconds", mutate(ARRIVAL_LINE, P + ["arrival"], "2024-05-17T07:55:00Z"), "payload.arrival"),
    ("arrival as a number", mutate(ARRIVAL_LINE, P + ["arrival"], 1715932500100), "payload.arrival"),
    ("departure on 30 February", mutate(DEPARTURE_LINE, P + ["departure"], "2024-02-30T08:00:00.000Z"),
     "is not a 'date-time'"),
    ("visit lat 91", mutate(ARRIVAL_LINE, P + ["lat"], 91), "payload.lat: 91 is greater than the maximum of 90"),
    ("negative visit accuracy", mutate(ARRIVAL_LINE, P + ["h_accuracy"], -1), "payload.h_accuracy"),
    ("visit of one fix", mutate(ARRIVAL_LINE, P + ["fixes"], 1), "payload.fixes: 1 is less than the minimum of 2"),
    ("fix count written 31.0", mutate(ARRIVAL_LINE, P + ["fixes"], 31.0), "payload.fixes: 31.0 is not of type 'integer'"),
    ("negative duration", mutate(DEPARTURE_LINE, P + ["duration"], -5), "payload.duration"),
    ("departure fields on an arrival", mutate(ARRIVAL_LINE, P + ["departure"], "2024-05-17T08:55:00.100Z"),
     "payload: unexpected key(s) 'departure'"),
    ("arrival on the departure topic", mutate(ARRIVAL_LINE, ["topic"], "visit.departure.visits"), "does not fit the type"),
    ("visit without service id", mutate(DEPARTURE_LINE, ["topic"], "visit.departure"), "does not fit the type"),
    # region.enter / exit / dwell / state
    *[(f"region enter without {k}", mutate(REGION_ENTER_LINE, P + [k], delete=True), f"'{k}' is a required property")
      for k in ("region", "monitor", "state", "previous_state", "since", "assumed", "detected_after_restart", "properties")],
    ("region enter to outside", mutate(REGION_ENTER_LINE, P + ["state"], "unsatisfied"), "payload.state"),
    ("region state inside-ish", mutate(REGION_ENTER_LINE, P + ["previous_state"], "inside"), "payload.previous_state"),
    ("region confidence above 1", mutate(REGION_ENTER_LINE, P + ["confidence"], 1.5), "payload.confidence"),
    ("region lat without lon", mutate(REGION_ENTER_LINE, P + ["lon"], delete=True), "'lon' is a required property"),
    ("region properties as a list", mutate(REGION_ENTER_LINE, P + ["properties"], []), "payload.properties"),
    ("region dwell without dwell", mutate(REGION_DWELL_LINE, P + ["dwell"], delete=True), "'dwell' is a required property"),
    ("region topic names another region", mutate(REGION_ENTER_LINE, ["topic"], "region.enter.work"), "region"),
    ("region enter on the exit topic", mutate(REGION_ENTER_LINE, ["topic"], "region.exit.home"), "does not fit the type"),
    ("region extra key", mutate(REGION_ENTER_LINE, P + ["inside"], True), "payload: unexpected key(s) 'inside'"),
]


def as_text(case):
    return case if isinstance(case, str) else json.dumps(case, separators=(",", ":"))


def run_cli(*args, stdin=""):
    return subprocess.run([sys.executable, str(SCRIPT), *args], input=stdin, capture_output=True,
                          text=True, timeout=60)


def main():
    passed, failures = 0, []

    def check(name, ok, detail=""):
        nonlocal passed
        if ok:
            passed += 1
        else:
            failures.append(f"{name}: {detail}")

    for name, case in GOOD.items():
        problems = validator.check_line(as_text(case))
        check(f"good: {name}", problems == [], f"unexpected problems {problems}")

    for name, case, fragment in BAD:
        problems = validator.check_line(as_text(case))
        check(f"bad: {name}", any(fragment in p for p in problems),
              f"expected a problem containing {fragment!r}, got {problems}")

    # The command line: exit status, line numbers and the summary.
    good_text = "".join(as_text(c) + "\n" for c in GOOD.values())
    r = run_cli(stdin=good_text + "\n")
    check("cli: good input exits 0", r.returncode == 0 and r.stdout == f"validated {len(GOOD)} messages, 0 errors\n",
          f"rc={r.returncode} out={r.stdout!r} err={r.stderr!r}")

    broken = as_text(mutate(TICK_LINE, E + ["seq"], 0))
    r = run_cli("-", stdin=good_text + broken + "\n")
    check("cli: broken input exits 1 with the line number",
          r.returncode == 1 and f"<stdin>:{len(GOOD) + 1}: envelope.seq" in r.stdout
          and r.stdout.endswith(f"validated {len(GOOD) + 1} messages, 1 errors\n"),
          f"rc={r.returncode} out={r.stdout!r}")

    r = subprocess.run([sys.executable, str(SCRIPT)], input=b"\xff\xfe\n", capture_output=True, timeout=60)
    check("cli: invalid UTF-8 is reported, not a crash", r.returncode == 1 and b"<stdin>:1: not UTF-8" in r.stdout,
          f"rc={r.returncode} out={r.stdout!r} err={r.stderr!r}")

    r = run_cli("/nonexistent/recording.jsonl")
    check("cli: unreadable file is an error", r.returncode == 1 and "validated 0 messages, 1 errors" in r.stdout,
          f"rc={r.returncode} out={r.stdout!r}")

    if RECORDING.exists():
        r = run_cli(str(RECORDING))
        check("cli: the bundled demo recording validates", r.returncode == 0 and r.stdout.endswith(" 0 errors\n"),
              f"rc={r.returncode} out={r.stdout[-500:]!r}")

    for f in failures:
        print("FAIL", f)
    print(f"{passed} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

"""Writes the recording of ServiceStateKillTests' beacon test (argv[1]) from three golden beacon recordings.

Made at test time rather than committed (3 MB). The golden inputs are ours (tools/beacon_sequence.py, frames from Plugins/Beacon/testdata/vectors.json; see each
case's README.md).

Each copy of the golden inputs is heard by its own gateway (gw1: beacon-walkby, gw2:
beacon-two-majors 30 s later, gw3: beacon-eddystone 60 s later); the copies repeat every
240 s, six times. Lines are merged by time and renumbered per producer.
"""
import json, datetime, sys, os

here = os.path.dirname(os.path.abspath(__file__))
golden = os.path.join(here, "..", "..", "..", "Golden")
parts = [("gw1", "beacon-walkby", 0), ("gw2", "beacon-two-majors", 30), ("gw3", "beacon-eddystone", 60)]
lines = []
for repeat in range(6):
    for gw, case, offset in parts:
        for line in open(os.path.join(golden, case, "input.jsonl")):
            m = json.loads(line)
            e = m["envelope"]
            t = datetime.datetime.fromisoformat(e["time"].replace("Z", "+00:00"))
            t += datetime.timedelta(seconds=offset + 240 * repeat)
            e["time"] = t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (t.microsecond // 1000)
            e["producer"] = gw
            e["payload"]["source"] = gw
            m["topic"] = "obs.ble." + gw
            lines.append((t, gw, m))
lines.sort(key=lambda x: (x[0], x[1]))
seq = {}
with open(sys.argv[1], "w") as out:
    for t, gw, m in lines:
        seq[gw] = seq.get(gw, 0) + 1
        m["envelope"]["seq"] = seq[gw]
        out.write(json.dumps(m, separators=(",", ":")) + "\n")

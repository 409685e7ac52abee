#!/usr/bin/env python3
"""tools/payloadgen.py: the checked-in codecs and doc tables are what the schemas declare, and
a change to a schema is caught until the tool has been run (make test runs this)."""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOL = os.path.join(ROOT, "tools", "payloadgen.py")


def run(*args):
    return subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True)


class PayloadGen(unittest.TestCase):
    def test_the_tree_is_as_the_schemas_declare(self):
        r = run("--check")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_a_schema_change_is_caught_until_regenerated(self):
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copytree(os.path.join(ROOT, "schemas"), os.path.join(tmp, "schemas"))
            os.makedirs(os.path.join(tmp, "docs"))
            shutil.copy(os.path.join(ROOT, "docs", "protocol.md"), os.path.join(tmp, "docs"))
            for s in glob.glob(os.path.join(tmp, "schemas", "*.schema.json")):
                meta = json.load(open(s)).get("x-locus-swift")
                if meta and "file" in meta:
                    dest = os.path.join(tmp, meta["file"])
                    os.makedirs(os.path.dirname(dest), exist_ok=True)
                    shutil.copy(os.path.join(ROOT, meta["file"]), dest)
            self.assertEqual(run("--check", "--root", tmp).returncode, 0)
            path = os.path.join(tmp, "schemas", "obs.fix.schema.json")
            schema = json.load(open(path))
            schema["properties"]["speed"]["x-digits"] = 2
            schema["properties"]["speed"]["description"] = "Speed over ground, m/s (changed)."
            json.dump(schema, open(path, "w"))
            r = run("--check", "--root", tmp)
            self.assertEqual(r.returncode, 1)
            self.assertIn("Sources/LocusCore/Events/Fix+Wire.swift", r.stdout)
            self.assertIn("docs/protocol.md", r.stdout)
            self.assertEqual(run("--root", tmp).returncode, 0)
            self.assertIn('w.field("speed", speed, fractionDigits: 2)',
                          open(os.path.join(tmp, "Sources/LocusCore/Events/Fix+Wire.swift")).read())
            self.assertIn("Speed over ground, m/s (changed).", open(os.path.join(tmp, "docs", "protocol.md")).read())
            self.assertEqual(run("--check", "--root", tmp).returncode, 0)


if __name__ == "__main__":
    sys.exit(unittest.main())

#!/usr/bin/env python3
"""Each event type is declared three times: its Swift codec, its JSON Schema (schemas/) and its
table in docs/protocol.md section 5. This test checks that the three agree: every field the
schema allows is in the doc table and the reverse, required fields are marked required in both,
and every payload Locus really writes (the golden outputs and inputs, Tests/Golden/*/*.jsonl,
and data/recordings) uses only fields the schema declares. (clock.tick, status.plugin and the
state snapshots are not in those files; the end-to-end tests validate them against the schemas
with additionalProperties false.) Run from the repository root (make test does)."""
import glob
import json
import os
import re
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def schemas():
    out = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "schemas", "*.schema.json"))):
        s = json.load(open(path))
        t = s.get("x-locus-event-type")
        if t:
            out[t] = s
    return out


def all_property_names(schema):
    """Every property name the schema declares, at any depth (nested objects, list items, $defs)."""
    names = set()
    def walk(node):
        if isinstance(node, dict):
            for k, v in node.get("properties", {}).items():
                names.add(k)
                walk(v)
            for k, v in node.items():
                if k != "properties":
                    walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
    walk(schema)
    return names


def doc_sections():
    """Event type -> (field names in its doc section's tables, required field names)."""
    text = open(os.path.join(ROOT, "docs", "protocol.md"), encoding="utf-8").read()
    sections = re.split(r"^##+ ", text, flags=re.M)
    out = {}
    for sec in sections:
        heading, _, body = sec.partition("\n")
        m = re.match(r"5\.\d+(?:\.\d+)? (.*?):", heading)
        if not m:
            continue
        types = re.findall(r"`([a-z_.]+)`", m.group(1))
        fields, required = set(), set()
        for line in body.splitlines():
            if not line.startswith("| `"):
                continue
            first = line.split("|")[1]
            names = re.findall(r"`([a-z0-9_.]+)`", first)
            fields.update(names)
            last = [c.strip() for c in line.strip().strip("|").split("|")][-1]
            if last.startswith("required"):
                required.update(names)
        for t in types:
            out[t] = (fields, required)
    return out


def golden_payload_keys():
    """Payload keys by event type in what Locus really writes: the golden cases' outputs and
    inputs (recordings made by Locus's own decoders) and the demo recordings."""
    keys = {}
    paths = (glob.glob(os.path.join(ROOT, "Tests", "Golden", "*", "*.jsonl"))
             + glob.glob(os.path.join(ROOT, "data", "recordings", "*.jsonl")))
    for path in paths:
        for line in open(path, encoding="utf-8"):
            env = json.loads(line)["envelope"]
            p = env.get("payload")
            if isinstance(p, dict):
                keys.setdefault(env["type"], set()).update(p.keys())
    return keys


class PayloadDeclarationsAgree(unittest.TestCase):
    def test_every_schema_has_a_doc_section_with_the_same_fields(self):
        docs = doc_sections()
        for t, s in schemas().items():
            with self.subTest(type=t):
                self.assertIn(t, docs, f"docs/protocol.md section 5 has no heading naming `{t}`")
                fields, required = docs[t]
                props = set(s.get("properties", {}))
                missing = props - fields
                self.assertFalse(missing, f"{t}: schema fields not in its docs table: {sorted(missing)}")
                # A section may document several types (region.enter/exit/...): its fields must
                # each belong to one of them.
                section_types = [u for u, (f, _) in docs.items() if f is fields]
                union = set().union(*(all_property_names(schemas().get(u, {})) for u in section_types))
                extra = fields - union
                self.assertFalse(extra, f"{t}: docs table fields no schema of its section declares: {sorted(extra)}")
                req = set(s.get("required", []))
                if len(section_types) == 1:
                    self.assertTrue(req <= required, f"{t}: schema-required fields not marked required in the docs: {sorted(req - required)}")

    def test_every_doc_section_type_has_a_schema(self):
        known = schemas()
        for t in doc_sections():
            with self.subTest(type=t):
                self.assertIn(t, known, f"docs/protocol.md documents `{t}` but schemas/ has no schema for it")

    def test_what_services_write_is_declared(self):
        known = schemas()
        seen = golden_payload_keys()
        self.assertTrue(seen, "no golden outputs found")
        for t, keys in seen.items():
            with self.subTest(type=t):
                self.assertIn(t, known, f"golden outputs contain {t}, which has no schema")
                undeclared = keys - set(known[t].get("properties", {}))
                self.assertFalse(undeclared, f"{t}: written but not in its schema: {sorted(undeclared)}")


if __name__ == "__main__":
    sys.exit(unittest.main())

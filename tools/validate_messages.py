#!/usr/bin/env python3
"""Check Locus bus messages in recording format against the JSON Schemas in schemas/.

    validate_messages.py [--schemas DIR]... [FILE...]     (no FILE, or "-", reads stdin)

Each input line is `{"topic":"…","envelope":{…}}`, as `locus record` writes and
examples/python/subscriber.py --json prints. For every line it checks:

- the line is one JSON object with exactly "topic" and "envelope" (and "gap", which
  `locus sub --json` adds after a break in a producer's sequence);
- the topic grammar (lower-case [a-z0-9_-] segments joined by dots, at most 255 bytes);
- the envelope against schemas/envelope.schema.json;
- the payload against schemas/<type>.schema.json, for the version that file describes;
- that the topic fits the type ("x-locus-topic" in the schema, e.g. obs.fix.<source>), and
  that a placeholder named after a payload field (<source>, <plugin>) equals that field;
- a few rules a schema cannot say (obs.sky counts match the satellite list; body size).

This is stricter than the hub on purpose: it rejects keys the schemas do not list, null for
optional fields, and 5.0 where an integer is expected, so that producer bugs show up in tests
rather than as silently ignored data. Unknown event types are errors; pass --schemas DIR for
a plugin's own types.

Prints `FILE:LINE: problem` per problem and a summary `validated N messages, M errors`;
exits 1 if there was any error, 2 on bad usage or unreadable schemas.
"""

import argparse
import calendar
import json
import re
import sys
from pathlib import Path

try:
    import jsonschema
    from jsonschema import Draft202012Validator
except ImportError:  # pragma: no cover - depends on the machine
    sys.exit("validate_messages.py needs the jsonschema package (Debian: python3-jsonschema)")

DEFAULT_SCHEMAS = Path(__file__).resolve().parent.parent / "schemas"
TOPIC_RE = re.compile(r"[a-z0-9_-]+(\.[a-z0-9_-]+)*")
TOPIC_MAX_BYTES = 255
# The hub's default hub.max_message_bytes: bodies larger than this are dropped.
MAX_BODY_BYTES = 262144
RFC3339_RE = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))")


def is_rfc3339(value):
    """date-time per RFC 3339 section 5.6, checking the calendar too (no 2023-02-29)."""
    if not isinstance(value, str):
        return True  # format only constrains strings; "type" reports the rest
    m = RFC3339_RE.fullmatch(value)
    if not m:
        return False
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    if not 1 <= month <= 12 or not 1 <= day <= calendar.monthrange(year, month)[1]:
        return False
    if hour > 23 or minute > 59 or second > 60:  # 60: a leap second
        return False
    if m.group(9) is not None and (int(m.group(9)) > 23 or int(m.group(10)) > 59):
        return False
    return True


def check_gap(gap):
    """`locus sub --json` marks the line after a break in a producer's sequence with
    "gap": {"producer"[, "topic"], "after", "seq", "missed"[, "restarted": true]}; with "topic"
    the break is in that topic's topic_seq, which after and seq then hold."""
    if not isinstance(gap, dict):
        return ['"gap" must be an object']
    problems = []
    for key in ("producer", "after", "seq", "missed"):
        if key not in gap:
            problems.append(f'"gap" lacks {key!r}')
    for key in ("after", "seq", "missed"):
        if key in gap and not (isinstance(gap[key], int) and not isinstance(gap[key], bool) and gap[key] >= 0):
            problems.append(f'"gap".{key} must be a non-negative integer')
    if "topic" in gap and not (isinstance(gap["topic"], str) and TOPIC_RE.fullmatch(gap["topic"])
                               and len(gap["topic"].encode()) <= TOPIC_MAX_BYTES):
        problems.append('"gap".topic must be a topic')
    if "restarted" in gap and gap["restarted"] is not True:
        problems.append('"gap".restarted is only written as true')
    extra = sorted(set(gap) - {"producer", "topic", "after", "seq", "missed", "restarted"})
    if extra:
        problems.append(f'unexpected key(s) in "gap": {", ".join(map(repr, extra))}')
    return problems


def format_checker():
    checker = jsonschema.FormatChecker()
    # jsonschema checks date-time only when the optional rfc3339-validator package is
    # installed (Debian 12 does not have it); fall back to our own check.
    if "date-time" not in checker.checkers:
        checker.checks("date-time")(is_rfc3339)
    return checker


def strict_validator_class():
    """Draft 2020-12, except that "integer" means a JSON number written without a fraction.

    The spec counts 5.0 as an integer, but Locus's reader refuses it, so a producer writing
    "seq":5.0 must fail here too. json.loads gives int only for numbers without "." or "e".
    """
    def is_integer(_checker, instance):
        return isinstance(instance, int) and not isinstance(instance, bool)

    type_checker = Draft202012Validator.TYPE_CHECKER.redefine("integer", is_integer)
    return jsonschema.validators.extend(Draft202012Validator, type_checker=type_checker)


def reject_constant(name):
    raise ValueError(f"{name} is not JSON")


def no_duplicate_keys(pairs):
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise ValueError(f"duplicate key {key!r}")
        obj[key] = value
    return obj


def parse_json(text):
    # Python's json accepts NaN/Infinity and lets duplicate keys overwrite silently;
    # neither is valid (or safe) on the bus.
    return json.loads(text, parse_constant=reject_constant, object_pairs_hook=no_duplicate_keys)


def path_of(prefix, error):
    parts = [prefix]
    for p in error.absolute_path:
        parts.append(f"[{p}]" if isinstance(p, int) else f".{p}")
    return "".join(parts)


def describe(prefix, error):
    """One line per schema error, pointing at the field, e.g. `payload.lat: 91 is greater…`."""
    if error.validator == "additionalProperties":
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        return f"{path_of(prefix, error)}: unexpected key(s) {', '.join(map(repr, extra))}"
    if error.validator == "pattern":
        return f"{path_of(prefix, error)}: {error.instance!r} does not match {error.validator_value}"
    return f"{path_of(prefix, error)}: {error.message}"


def topic_problems(topic, template, payload):
    """Compares a topic with a template like obs.fix.<source>; <x> stands for one segment."""
    want = template.split(".")
    have = topic.split(".")
    if len(want) != len(have) or any(
            not w.startswith("<") and w != h for w, h in zip(want, have)):
        return [f"topic {topic!r} does not fit the type (expected {template})"]
    problems = []
    for w, h in zip(want, have):
        if w.startswith("<"):
            field = w[1:-1]
            value = payload.get(field) if isinstance(payload, dict) else None
            if isinstance(value, str) and value != h:
                problems.append(f"topic segment {h!r} differs from payload.{field} {value!r}")
    return problems


def fitting_topic_problems(topic, templates, payload):
    """topic_problems for the template the topic fits: x-locus-topic, or the per-device form
    (x-locus-topic-per-device, a service with per_device: true)."""
    results = [topic_problems(topic, t, payload) for t in templates]
    fitting = [r for r in results if not any("does not fit" in p for p in r)]
    return fitting[0] if fitting else results[0]


def sky_counts(payload):
    sats = payload.get("satellites", [])
    if not isinstance(sats, list):
        return []
    problems = []
    if "in_view" in payload and payload["in_view"] != len(sats):
        problems.append(f"payload.in_view is {payload['in_view']} but satellites has {len(sats)} entries")
    used = sum(1 for s in sats if isinstance(s, dict) and s.get("used") is True)
    if "used" in payload and payload["used"] != used:
        problems.append(f"payload.used is {payload['used']} but {used} satellites have used=true")
    return problems


# Rules between fields that JSON Schema cannot express, by event type.
EXTRA_CHECKS = {"obs.sky": sky_counts}


class MessageValidator:
    def __init__(self, schema_dirs):
        cls = strict_validator_class()
        checker = format_checker()
        self.payloads = {}  # type -> (version, topic templates, validator)
        envelope = None
        for directory in schema_dirs:
            for path in sorted(Path(directory).glob("*.schema.json")):
                schema = json.loads(path.read_text(encoding="utf-8"))
                cls.check_schema(schema)
                name = path.name[: -len(".schema.json")]
                if name == "envelope":
                    if envelope is None:  # the first directory's (Locus's own) wins
                        envelope = cls(schema, format_checker=checker)
                    continue
                if schema.get("x-locus-event-type", name) != name:
                    raise ValueError(f"{path}: x-locus-event-type does not match the file name")
                if name in self.payloads:
                    raise ValueError(f"{path}: a schema for {name} was already loaded")
                self.payloads[name] = (schema.get("x-locus-version", 1), [t for t in (schema.get("x-locus-topic"), schema.get("x-locus-topic-per-device")) if t],
                                       cls(schema, format_checker=checker))
        if envelope is None:
            raise ValueError("no envelope.schema.json in " + ", ".join(map(str, schema_dirs)))
        self.envelope = envelope

    def check_line(self, text):
        """Returns the problems with one recording line (empty if it is valid)."""
        try:
            line = parse_json(text)
        except ValueError as e:
            return [f"not valid JSON: {e}"]
        if not isinstance(line, dict):
            return ["a recording line must be a JSON object"]
        problems = []
        extra = sorted(set(line) - {"topic", "envelope", "gap"})
        if extra:
            problems.append(f"unexpected key(s) in the recording line: {', '.join(map(repr, extra))}")
        if "gap" in line:
            problems += check_gap(line["gap"])
        topic, env = line.get("topic"), line.get("envelope")
        if not isinstance(topic, str):
            problems.append('"topic" must be a string' if "topic" in line else '"topic" is missing')
            topic = None
        elif not TOPIC_RE.fullmatch(topic) or len(topic.encode("utf-8")) > TOPIC_MAX_BYTES:
            problems.append(f"bad topic {topic!r}: lower-case [a-z0-9_-] segments joined by dots, "
                            f"at most {TOPIC_MAX_BYTES} bytes")
            topic = None
        if not isinstance(env, dict):
            problems.append('"envelope" must be an object' if "envelope" in line else '"envelope" is missing')
            return problems

        body_bytes = len(json.dumps(env, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))
        if body_bytes > MAX_BODY_BYTES:
            problems.append(f"envelope is {body_bytes} bytes; the hub drops bodies over {MAX_BODY_BYTES}")
        problems += [describe("envelope", e) for e in
                     sorted(self.envelope.iter_errors(env), key=lambda e: list(e.absolute_path))]

        etype, payload = env.get("type"), env.get("payload")
        if not isinstance(etype, str):
            return problems
        known = self.payloads.get(etype)
        if known is None:
            problems.append(f"unknown event type {etype!r} (no {etype}.schema.json)")
            return problems
        version, templates, validator = known
        if isinstance(env.get("version"), int) and env["version"] != version:
            problems.append(f"{etype} version {env['version']} has no schema (schemas describe version {version})")
            return problems
        if topic is not None and templates:
            problems += fitting_topic_problems(topic, templates, payload)
        if isinstance(payload, dict):
            problems += [describe("payload", e) for e in
                         sorted(validator.iter_errors(payload), key=lambda e: list(e.absolute_path))]
            problems += EXTRA_CHECKS.get(etype, lambda _p: [])(payload)
        return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", default=["-"], help="recording files; - or none for stdin")
    parser.add_argument("--schemas", action="append", default=[], metavar="DIR",
                        help="also load <type>.schema.json files from DIR (repeatable)")
    args = parser.parse_args(argv)
    try:
        validator = MessageValidator([DEFAULT_SCHEMAS, *args.schemas])
    except (OSError, ValueError, jsonschema.SchemaError) as e:
        print(f"validate_messages.py: cannot load schemas: {e}", file=sys.stderr)
        return 2

    messages = errors = 0
    for name in args.files:
        label = "<stdin>" if name == "-" else name
        try:
            # Bytes, so that one line of bad UTF-8 is reported rather than ending the run.
            stream = sys.stdin.buffer if name == "-" else open(name, "rb")
        except OSError as e:
            print(f"{label}: {e.strerror}", file=sys.stderr)
            errors += 1
            continue
        with stream:
            for number, raw in enumerate(stream, 1):
                if not raw.strip():
                    continue
                messages += 1
                try:
                    problems = validator.check_line(raw.decode("utf-8"))
                except UnicodeDecodeError as e:
                    problems = [f"not UTF-8: {e.reason} at byte {e.start}"]
                for problem in problems:
                    errors += 1
                    print(f"{label}:{number}: {problem}")
    print(f"validated {messages} messages, {errors} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())

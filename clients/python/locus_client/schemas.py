"""Checking messages against Locus's JSON Schemas (docs/protocol.md section 10).

The same checks as the repository's tools/validate_messages.py, for one message at a time:
envelope and payload schemas (draft 2020-12, "integer" meaning a number written without a
fraction, as Locus's reader has it), the schema's version, the topic's form for its type
(`x-locus-topic`), and the obs.sky counts. Needs the jsonschema package.
"""

import calendar
import json
import os
import re
from pathlib import Path

from .envelope import is_valid_topic


class SchemaError(ValueError):
    """A message its schema refuses, or schemas that cannot be used; `problems` lists each."""

    def __init__(self, problems):
        super().__init__("; ".join(problems))
        self.problems = problems


def schemas_directory(directory=None):
    """`directory`, else $LOCUS_SCHEMAS_DIR, else the repository's schemas/ next to this
    package (clients/python/../../schemas), else /usr/share/locus/schemas: the first that holds
    envelope.schema.json."""
    candidates = [directory] if directory else [
        os.environ.get("LOCUS_SCHEMAS_DIR"), Path(__file__).resolve().parents[3] / "schemas", "/usr/share/locus/schemas"]
    for candidate in candidates:
        if candidate and (Path(candidate) / "envelope.schema.json").is_file():
            return Path(candidate)
    if directory:
        raise SchemaError([f"no envelope.schema.json in {directory}"])
    raise SchemaError(["no Locus schemas found: pass directory= or set LOCUS_SCHEMAS_DIR to the repository's schemas/"])


_RFC3339 = re.compile(r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))")


def _is_rfc3339(value):
    # jsonschema checks "date-time" only with the optional rfc3339-validator package, which
    # Debian 12 lacks; this is the check tools/validate_messages.py uses, calendar included.
    if not isinstance(value, str):
        return True
    m = _RFC3339.fullmatch(value)
    if not m:
        return False
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    if not 1 <= month <= 12 or not 1 <= day <= calendar.monthrange(year, month)[1]:
        return False
    if hour > 23 or minute > 59 or second > 60:
        return False
    return m.group(9) is None or (int(m.group(9)) <= 23 and int(m.group(10)) <= 59)


def strict_validator():
    """(validator class, format checker): draft 2020-12 with "integer" meaning a number written
    without a fraction (not 1.0, not true) and RFC 3339 date-times checked."""
    try:
        import jsonschema
        from jsonschema import Draft202012Validator
    except ImportError:  # pragma: no cover - depends on the machine
        raise SchemaError(["validate() needs the jsonschema package "
                           "(pip install jsonschema, or locus-client[validate]; Debian: python3-jsonschema)"]) from None
    checker = jsonschema.FormatChecker()
    if "date-time" not in checker.checkers:
        checker.checks("date-time")(_is_rfc3339)
    strict_int = Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _c, v: isinstance(v, int) and not isinstance(v, bool))
    return jsonschema.validators.extend(Draft202012Validator, type_checker=strict_int), checker


class _Schemas:
    """The envelope schema and every `<type>.schema.json` of some directories."""

    def __init__(self, directories):
        cls, checker = strict_validator()
        self.envelope = None
        self.payloads = {}  # type -> (version, topic templates, validator)
        for directory in directories:
            for path in sorted(Path(directory).glob("*.schema.json")):
                schema = json.loads(path.read_text(encoding="utf-8"))
                name = path.name[: -len(".schema.json")]
                if name == "envelope":
                    if self.envelope is None:  # the first directory's (Locus's own) wins
                        self.envelope = cls(schema, format_checker=checker)
                elif name not in self.payloads:
                    self.payloads[name] = (schema.get("x-locus-version", 1), [t for t in (schema.get("x-locus-topic"), schema.get("x-locus-topic-per-device")) if t],
                                           cls(schema, format_checker=checker))
        if self.envelope is None:
            raise SchemaError([f"no envelope.schema.json in {', '.join(map(str, directories))}"])


_cache = {}


def _schemas(directory, extra):
    key = (str(schemas_directory(directory)), tuple(str(d) for d in extra))
    if key not in _cache:
        _cache[key] = _Schemas([key[0], *key[1]])
    return _cache[key]


def _strict_json(text):
    # Python's json reads NaN/Infinity and lets a duplicate key overwrite; neither is valid on the bus.
    def constant(name):
        raise ValueError(f"{name} is not JSON")

    def pairs(items):
        obj = {}
        for k, v in items:
            if k in obj:
                raise ValueError(f"duplicate key {k!r}")
            obj[k] = v
        return obj
    return json.loads(text, parse_constant=constant, object_pairs_hook=pairs)


def _where(prefix, error):
    return prefix + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)


def _topic_problems(topic, template, payload):
    want, have = template.split("."), topic.split(".")
    if len(want) != len(have) or any(not w.startswith("<") and w != h for w, h in zip(want, have)):
        return [f"topic {topic!r} does not fit the type (expected {template})"]
    problems = []
    for w, h in zip(want, have):
        value = payload.get(w[1:-1]) if w.startswith("<") and isinstance(payload, dict) else None
        if isinstance(value, str) and value != h:
            problems.append(f"topic segment {h!r} differs from payload.{w[1:-1]} {value!r}")
    return problems


def _sky_counts(payload):
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


def problems(topic, envelope=None, directory=None, extra=()):
    """The list of what is wrong with a message (empty if it is valid); see `validate`."""
    if envelope is None and hasattr(topic, "body"):  # a Message
        topic, envelope = topic.topic, topic.body
    found = []
    if isinstance(envelope, (str, bytes)):
        try:
            envelope = _strict_json(envelope)
        except (ValueError, UnicodeDecodeError) as e:
            return [f"body is not valid JSON: {e}"]
    schemas = _schemas(directory, extra)
    if not is_valid_topic(topic):
        found.append(f"topic {topic!r} is not valid (lower-case [a-z0-9_-] segments joined by dots, at most 255 bytes)")
        topic = None
    found += [f"{_where('envelope', e)}: {e.message}"
              for e in sorted(schemas.envelope.iter_errors(envelope), key=lambda e: list(e.absolute_path))]
    kind = envelope.get("type") if isinstance(envelope, dict) else None
    if not isinstance(kind, str):
        return found
    known = schemas.payloads.get(kind)
    if known is None:
        return found + [f"unknown event type {kind!r} (no {kind}.schema.json)"]
    version, templates, validator = known
    if isinstance(envelope.get("version"), int) and envelope["version"] != version:
        return found + [f"{kind} version {envelope['version']} has no schema (the schemas describe version {version})"]
    payload = envelope.get("payload")
    if topic is not None and templates:
        # x-locus-topic, or the per-device form (a service with per_device: true).
        results = [_topic_problems(topic, t, payload) for t in templates]
        fitting = [r for r in results if not any("does not fit" in p for p in r)]
        found += fitting[0] if fitting else results[0]
    if isinstance(payload, dict):
        found += [f"{_where('payload', e)}: {e.message}"
                  for e in sorted(validator.iter_errors(payload), key=lambda e: list(e.absolute_path))]
        if kind == "obs.sky":
            found += _sky_counts(payload)
    return found


def validate(topic, envelope=None, directory=None, extra=()):
    """Raises SchemaError (its `problems` a list of strings) unless the message is valid.

    `envelope` is a dict or the body as str/bytes (read strictly: NaN and duplicate keys are
    refused); `validate(message)` takes a received Message. The schemas come from
    `schemas_directory(directory)`; `extra` lists directories with schemas of plugins' own event
    types. Stricter than the hub on purpose, like the schemas (section 10): unknown keys,
    null, 5.0 for an integer, a topic that does not fit the type and a version without a
    schema are refused, to catch producer bugs.
    """
    found = problems(topic, envelope, directory, extra)
    if found:
        raise SchemaError(found)

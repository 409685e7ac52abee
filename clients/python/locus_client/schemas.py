"""Checking messages against Locus's JSON Schemas (docs/protocol.md section 10)."""

import json
import os
from pathlib import Path

from .envelope import is_valid_topic


class SchemaError(ValueError):
    """A message its schema refuses; `problems` lists each as text."""

    def __init__(self, problems):
        super().__init__("; ".join(problems))
        self.problems = problems


def schemas_directory(directory=None):
    """`directory`, else $LOCUS_SCHEMAS_DIR, else the repository's schemas/ next to this
    package (clients/python/../../schemas), else /usr/share/locus/schemas."""
    for candidate in (directory, os.environ.get("LOCUS_SCHEMAS_DIR"),
                      Path(__file__).resolve().parents[3] / "schemas", "/usr/share/locus/schemas"):
        if candidate and (Path(candidate) / "envelope.schema.json").is_file():
            return Path(candidate)
    raise SchemaError(["no Locus schemas found: pass directory= or set LOCUS_SCHEMAS_DIR"])


_cache = {}


def _validator(path):
    try:
        from jsonschema import Draft202012Validator, FormatChecker
    except ImportError:  # pragma: no cover - depends on the machine
        raise SchemaError(["validate() needs the jsonschema package (pip install jsonschema; Debian: python3-jsonschema)"]) from None
    if path not in _cache:
        _cache[path] = Draft202012Validator(json.loads(Path(path).read_text()), format_checker=FormatChecker())
    return _cache[path]


def validate(topic, envelope, directory=None):
    """Raises SchemaError unless `envelope` (a dict, or a body as str/bytes) is valid for its
    type's schema and `topic` is a valid topic. Stricter than the hub, like the schemas: keys
    they do not list and null for optional fields are refused, to catch producer bugs."""
    if isinstance(envelope, (str, bytes)):
        envelope = json.loads(envelope)
    base = schemas_directory(directory)
    problems = []
    if not is_valid_topic(topic):
        problems.append(f"topic {topic!r} is not valid")
    problems += [f"envelope: {e.message}" for e in _validator(base / "envelope.schema.json").iter_errors(envelope)]
    kind = envelope.get("type") if isinstance(envelope, dict) else None
    payload_schema = base / f"{kind}.schema.json"
    if isinstance(kind, str) and payload_schema.is_file():
        path = lambda e: "/".join(str(p) for p in e.absolute_path)
        problems += [f"payload {path(e)}: {e.message}" for e in _validator(payload_schema).iter_errors(envelope.get("payload"))]
    elif isinstance(kind, str):
        problems.append(f"no schema for type {kind!r} in {base}")
    if problems:
        raise SchemaError(problems)

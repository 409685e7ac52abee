"""The envelope of every Locus message (docs/protocol.md section 4), read and written."""

import datetime as _dt
import json
import math
import re
import time as _time
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Context, Decimal

_SEGMENT = re.compile(r"[a-z0-9_-]+")
_TOPIC = re.compile(r"[a-z0-9_-]+(\.[a-z0-9_-]+)*")
TOPIC_MAX_BYTES = 255
PRODUCER_MAX_BYTES = 64
MAX_DEPTH = 64  # the hub drops bodies nested deeper (4.4); the envelope itself is level 1


class EnvelopeError(ValueError):
    """A message that is not a valid Locus envelope, or a value that cannot be written as one."""


def is_valid_topic(topic):
    """Lower-case segments of a-z 0-9 _ - joined by dots, at most 255 bytes (3.2)."""
    return isinstance(topic, str) and len(topic.encode()) <= TOPIC_MAX_BYTES and _TOPIC.fullmatch(topic) is not None


def is_valid_segment(text):
    return isinstance(text, str) and 0 < len(text.encode()) <= PRODUCER_MAX_BYTES and _SEGMENT.fullmatch(text) is not None


def event_time(value=None):
    """Event time as the wire writes it, `2024-05-17T08:00:00.100Z` (4.3), from None (now),
    seconds since the epoch, a datetime (naive ones are taken as UTC) or such a string."""
    if value is None:
        ms = _time.time_ns() // 1_000_000
    elif isinstance(value, str):
        return event_time(parse_time(value))
    elif isinstance(value, _dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=_dt.timezone.utc)
        delta = value - _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
        ms = delta.days * 86_400_000 + delta.seconds * 1000 + delta.microseconds // 1000
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        if not math.isfinite(value):
            raise EnvelopeError(f"time {value!r} is not finite")
        ms = int(Decimal(repr(value)) * 1000 // 1)
    else:
        raise EnvelopeError(f"time must be None, seconds, a datetime or an ISO 8601 string; got {type(value).__name__}")
    seconds, millis = divmod(ms, 1000)
    if not -62_135_596_800 <= seconds < 253_402_300_800:  # 0001-01-01 to 9999-12-31
        raise EnvelopeError(f"time {value!r} is outside the years 1 to 9999 that the wire format (4.3) can write")
    return _time.strftime("%Y-%m-%dT%H:%M:%S", _time.gmtime(seconds)).rjust(19, "0") + f".{millis:03d}Z"


def parse_time(text):
    """An RFC 3339 time as a UTC datetime (any fraction truncated to milliseconds)."""
    m = re.fullmatch(r"(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}:\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})", text)
    if not m:
        raise EnvelopeError(f"{text!r} is not an RFC 3339 time such as 2024-05-17T08:00:00.100Z")
    fraction = (m.group(3) or ".0")[1:4].ljust(3, "0")
    zone = "+00:00" if m.group(4) in ("Z", "z") else m.group(4)
    try:
        return _dt.datetime.fromisoformat(f"{m.group(1)}T{m.group(2)}.{fraction}{zone}").astimezone(_dt.timezone.utc)
    except (ValueError, OverflowError) as e:  # 2024-02-30, hour 24, year 0
        raise EnvelopeError(f"{text!r} is not a valid time: {e}") from None


def round_half_away(value, digits):
    """`value` rounded to `digits` fraction digits, half away from zero, as a Decimal: what
    Locus does to a field with a maximum number of digits (4.4). Integers stay integers."""
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
        raise EnvelopeError(f"{value!r} is not a number")
    if isinstance(value, int):
        return value
    if not math.isfinite(value):
        raise EnvelopeError(f"{value!r} is not finite: JSON has no NaN or infinity, and Locus refuses them")
    exact = Decimal(repr(value) if isinstance(value, float) else value)
    return exact.quantize(Decimal(1).scaleb(-digits), ROUND_HALF_UP, context=_WIDE)


_WIDE = Context(prec=800)  # enough digits for any float in fixed point


def _number(value, path):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if not (value.is_finite() if isinstance(value, Decimal) else math.isfinite(value)):
        raise EnvelopeError(f"{path} is {value!r}: JSON has no NaN or infinity, and Locus refuses them")
    # Fixed point, never an exponent (4.4): for a float, the shortest digits that read back as it.
    text = format(value if isinstance(value, Decimal) else Decimal(repr(value)), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _json(value, path, depth=2):
    if value is None:
        raise EnvelopeError(f"{path} is None: leave optional fields out instead of writing null (4.4)")
    if isinstance(value, (dict, list, tuple)) and depth > MAX_DEPTH:
        raise EnvelopeError(f"{path} nests deeper than {MAX_DEPTH} levels, which the hub refuses (4.4)")
    if isinstance(value, (bool, int, float, Decimal)):
        return _number(value, path)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, dict):
        parts = []
        for k, v in value.items():
            if not isinstance(k, str):
                raise EnvelopeError(f"{path} has a key that is not a string: {k!r}")
            if v is None:
                continue  # optional field without a value: omitted, never null
            parts.append(json.dumps(k, ensure_ascii=False) + ":" + _json(v, f"{path}.{k}", depth + 1))
        return "{" + ",".join(parts) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_json(v, f"{path}[{i}]", depth + 1) for i, v in enumerate(value)) + "]"
    raise EnvelopeError(f"{path} is a {type(value).__name__}, which JSON cannot carry")


def to_json(value):
    """Compact JSON as Locus writes it: numbers in fixed point (0.00003, never 3e-05; floats
    with the shortest digits that read back as them, Decimals as they are), keys in the dict's
    order, None values in objects left out. Handy for printing a received payload."""
    return _json(value, "value", depth=1)


def _check_number(name, value):
    if not (isinstance(value, int) and not isinstance(value, bool) and 1 <= value < 2**63):
        raise EnvelopeError(f"{name} {value!r} must be an integer from 1 (4.2)")


def encode_envelope(type_, producer, seq, time, payload, version=1, topic_seq=None):
    """The JSON body of a message, keys in Locus's order, compact, numbers in fixed point,
    optional fields with None left out (4.1, 4.4). `topic_seq`, the producer's number on this
    message's topic (4.2), is written right after seq when given. Raises EnvelopeError for what
    Locus would refuse: a producer that is not a topic segment, seq or topic_seq < 1, NaN or
    infinity anywhere."""
    if not is_valid_segment(producer):
        raise EnvelopeError(f"producer {producer!r} is not a topic segment (1-64 of a-z 0-9 _ -)")
    if not (isinstance(type_, str) and _TOPIC.fullmatch(type_)):
        raise EnvelopeError(f"type {type_!r} is not a dotted event type such as obs.fix")
    _check_number("seq", seq)
    if topic_seq is not None:
        _check_number("topic_seq", topic_seq)
    if not (isinstance(version, int) and version >= 1):
        raise EnvelopeError(f"version {version!r} must be an integer from 1")
    if not isinstance(payload, dict):
        raise EnvelopeError("payload must be a dict")
    numbers = f'"seq":{seq}' if topic_seq is None else f'"seq":{seq},"topic_seq":{topic_seq}'
    return (f'{{"type":{json.dumps(type_)},"version":{version},"producer":{json.dumps(producer)},{numbers},'
            f'"time":"{event_time(time)}","payload":{_json(payload, "payload")}}}')


@dataclass(frozen=True)
class Envelope:
    type: str
    version: int
    producer: str
    seq: int
    time: str
    payload: dict
    #: The CURVE key name of the outside publisher, set by the hub (4.1); None otherwise.
    via: str = None
    #: The producer's number for this message on its topic (4.2), or None from a producer that
    #: does not write it. Last, so that positional construction without it keeps working.
    topic_seq: int = None

    @property
    def datetime(self):
        """`time` as an aware UTC datetime."""
        return parse_time(self.time)


def parse_envelope(body):
    """An Envelope from a message body (bytes or str); unknown keys are ignored (4.4)."""
    try:
        obj = json.loads(body)
    except (ValueError, UnicodeDecodeError) as e:
        raise EnvelopeError(f"not JSON: {e}") from None
    if not isinstance(obj, dict):
        raise EnvelopeError("the envelope is not a JSON object")
    for key, kind in (("type", str), ("version", int), ("producer", str), ("seq", int), ("time", str), ("payload", dict)):
        value = obj.get(key)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise EnvelopeError(f"envelope field {key!r} missing or not a {kind.__name__}")
    via = obj.get("via")
    # Optional, but when there it must be a number a subscriber can compare (as seq).
    topic_seq = obj.get("topic_seq")
    if "topic_seq" in obj and (not isinstance(topic_seq, int) or isinstance(topic_seq, bool) or topic_seq < 0):
        raise EnvelopeError("envelope field 'topic_seq' is not a non-negative int")
    return Envelope(obj["type"], obj["version"], obj["producer"], obj["seq"], obj["time"], obj["payload"],
                    via if isinstance(via, str) else None, topic_seq)

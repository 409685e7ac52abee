"""Catching up from the hub's journal, then live, without a gap or a duplicate (docs/protocol.md 13).

    from locus_client import DurableSubscriber

    with DurableSubscriber(["region."], after=saved) as sub:   # or since="2024-05-17T08:00:00Z"
        for m in sub:                        # the journal's events first, then live messages
            handle(m)
            saved = sub.position             # producer -> last seq delivered: persist it

The join is 13.2's: a SUB socket on the publish endpoint subscribes to the prefixes and, last,
to a sync token; a DEALER on the catch-up endpoint asks for pages of the journal until one says
`end`; the live messages queued meanwhile are then read, the ones the pages already gave (the
overlap) skipped.
"""

import collections
import json
import math
import time
import uuid

import zmq

from .curve import apply_curve, curve_options, uses_curve
from .endpoints import catchup_endpoint as default_catchup_endpoint
from .endpoints import default_endpoints
from .envelope import EnvelopeError, event_time, parse_envelope
from .gaps import GapTracker
from .schemas import SchemaError, schemas_directory, strict_validator
from .subscriber import Message

PAGE_LIMIT_MAX = 10000  # 13.2: `limit` is 1 to 10000
_OVERLAP_RUNS_MAX = 10000  # runs of sequence numbers remembered per producer for the overlap


class CatchupError(Exception):
    """The catch-up failed: the hub answered `catchup.error` (its text is `error`), or a reply
    broke protocol 13.2. The subscriber cannot go on; close it and start a new one."""

    def __init__(self, message, error=None):
        super().__init__(message)
        self.error = error


class CatchupTimeout(CatchupError):
    """No reply from the catch-up socket within `timeout` seconds (is the daemon running, with
    a journal?)."""


class _ProtocolSchemas:
    """Validators for the catch-up messages, schemas/protocol/catchup.*.schema.json, with
    "integer" meaning a number written without a fraction, as in schemas.py."""

    def __init__(self, directory):
        cls, checker = strict_validator()
        self.validators = {}
        for path in sorted(directory.glob("catchup.*.schema.json")):
            schema = json.loads(path.read_text(encoding="utf-8"))
            self.validators[path.name[: -len(".schema.json")]] = cls(schema, format_checker=checker)
        missing = {"catchup.request", "catchup.snapshot", "catchup.page", "catchup.error"} - set(self.validators)
        if missing:
            raise SchemaError([f"no {name}.schema.json in {directory}" for name in sorted(missing)])

    def problems(self, obj):
        validator = self.validators.get(obj.get("type"))
        if validator is None:
            return [f"unknown message type {obj.get('type')!r}"]
        return [f"{'/'.join(map(str, e.absolute_path)) or 'message'}: {e.message}"
                for e in sorted(validator.iter_errors(obj), key=lambda e: list(e.absolute_path))]


_schema_cache = {}


def _protocol_schemas(validate, directory):
    """The validators, or None when `validate` is False, or None (= if possible) and jsonschema
    or the schemas are missing. `directory` is the schemas/ directory (see schemas_directory)."""
    if validate is False:
        return None
    try:
        path = schemas_directory(directory) / "protocol"
        key = str(path)
        if key not in _schema_cache:
            _schema_cache[key] = _ProtocolSchemas(path)
        return _schema_cache[key]
    except (SchemaError, OSError, ValueError):  # SchemaError also when jsonschema is missing
        if validate:
            raise
    return None


def _prefixes(prefixes):
    if isinstance(prefixes, (str, bytes)):
        prefixes = [prefixes]
    prefixes = [p.decode() if isinstance(p, bytes) else p for p in prefixes]
    return prefixes or [""]


def _check_request(schemas, request):
    if schemas is not None:
        found = schemas.problems(request)
        if found:
            raise ValueError(f"invalid {request['type']}: " + "; ".join(found))


def _read_reply(socket, schemas):
    """(header, [(topic, body), ...]) of one reply; raises CatchupError for catchup.error and
    for a reply that breaks 13.2."""
    frames = socket.recv_multipart()
    try:
        header = json.loads(frames[0])
    except (ValueError, UnicodeDecodeError):
        raise CatchupError(f"catch-up reply header is not JSON: {frames[0][:200]!r}") from None
    if not isinstance(header, dict):
        raise CatchupError(f"catch-up reply header is not a JSON object: {frames[0][:200]!r}")
    found = schemas.problems(header) if schemas is not None else []
    if header.get("type") == "catchup.error":
        error = header.get("error")
        raise CatchupError(f"the hub refused the catch-up: {error}", error)
    if found:
        raise CatchupError("invalid catch-up reply: " + "; ".join(found))
    events, end = header.get("events"), header.get("end")
    # The checks this code relies on, also without jsonschema.
    if header.get("type") != "catchup.page" or not isinstance(events, int) or not isinstance(end, bool):
        raise CatchupError(f"not a catchup.page header: {frames[0][:200]!r}")
    if not end and not isinstance(header.get("next"), dict):
        raise CatchupError("catchup.page without end has no next")
    if len(frames) != 1 + 2 * events:
        raise CatchupError(f"catchup.page announces {events} events but has {len(frames) - 1} frames after the header")
    return header, [(frames[i], frames[i + 1]) for i in range(1, len(frames), 2)]


def _parse_event(topic, body):
    """(topic, envelope, body) as str, str-parsed, str; None if unreadable."""
    try:
        topic, body = topic.decode(), body.decode()
        return topic, parse_envelope(body), body
    except (UnicodeDecodeError, EnvelopeError):
        return None


class DurableSubscriber:
    """A subscriber that first fetches what it missed from the hub's journal, then goes on live,
    each message once (protocol 13.2). Iterate it, or call `receive(timeout)`, as a Subscriber.

    Where to start: `after`, a dict producer -> the last sequence number already handled (a
    saved `position`), and/or `since`, a time (ISO 8601 string, seconds since the epoch or a
    datetime; records the hub journaled at or after it) or "all" (everything the journal still
    has). Both given: both apply. Neither: no catch-up at all, live only (what `Subscriber`
    does, with `position` kept).

    `position` is a copy of the last sequence number delivered per producer: persist it (with
    what it covers) and pass it back as `after` to resume. Sequence numbers are followed
    through the catch-up and live (`gaps`, a GapTracker, seeded with `after`); `on_gap(gap,
    message)` is called for each break. As in Subscriber, with some prefixes only (`filtered`)
    messages carrying `topic_seq` are compared per producer and topic (`gap.topic` set), the
    others by `seq`; `position` stays per producer `seq` either way. A jump in `seq` during the
    catch-up means those messages are not in the journal: on topics it does not take (by default
    `obs.` and `clock.`), not matching `prefixes`, or deleted by retention; a jump in
    `topic_seq`, that they were deleted by retention or lost.

    `truncated` becomes True, and `on_truncated(header)` is called with the page header, when
    the hub says records after the requested position were already deleted: a gap that cannot
    be filled. `live` is False while pages are being read. Counters: `received`, `caught_up`
    (of them from the journal), `skipped` (live copies of journal events), `malformed`, `pages`.

    `timeout` bounds the wait for each page, in seconds: more than the 5 s the hub waits for the
    sync token. A page that does not come raises CatchupTimeout; a `catchup.error` reply or a
    reply that breaks 13.2 raises CatchupError (from `receive`, and again on every later call).

    Replies are checked against schemas/protocol/ when jsonschema and the schemas are there
    (`validate=None`); `validate=True` requires it, False skips it. `schema_directory` is the
    schemas/ directory (see `validate` in schemas.py).

    Live messages wait on the SUB socket while the pages are read: `high_water_mark` (ZeroMQ's
    default 1000) and the hub's queue must hold them, or they are lost (and shown as gaps).

    CURVE: `server_key` and `key` as for Subscriber (default $LOCUS_SERVER_KEY and
    $LOCUS_CLIENT_KEY), used on each of the two sockets whose endpoint is tcp. A refused key
    shows as CatchupTimeout.
    """

    def __init__(self, prefixes=("",), after=None, since=None, endpoint=None, catchup_endpoint=None,
                 context=None, limit=1000, timeout=10.0, on_gap=None, on_truncated=None,
                 validate=None, schema_directory=None, high_water_mark=None, server_key=None, key=None):
        self.prefixes = _prefixes(prefixes)
        if not (isinstance(limit, int) and 1 <= limit <= PAGE_LIMIT_MAX):
            raise ValueError(f"limit must be 1 to {PAGE_LIMIT_MAX}, not {limit!r}")
        if after is not None:
            after = dict(after)
            for producer, seq in after.items():
                if not isinstance(producer, str) or isinstance(seq, bool) or not isinstance(seq, int) or seq < 0:
                    raise ValueError(f"after must map producer ids to sequence numbers >= 0; got {producer!r}: {seq!r}")
        if since is not None and since != "all":
            since = event_time(since)  # raises EnvelopeError (a ValueError) for what is not a time
        self.endpoint = endpoint or default_endpoints()["publish"]
        self.catchup_endpoint = catchup_endpoint or default_catchup_endpoint()
        tcp = uses_curve(self.endpoint) or uses_curve(self.catchup_endpoint)
        self.curve = curve_options(server_key, key) if tcp else None
        self.limit = limit
        self.timeout = timeout
        self.on_gap = on_gap
        self.on_truncated = on_truncated
        # Some prefixes only: the empty prefix, among others too, subscribes to everything.
        self.filtered = "" not in self.prefixes
        self.gaps = GapTracker({p: s for p, s in (after or {}).items() if s > 0}, per_topic=self.filtered)
        self.received = self.caught_up = self.skipped = self.malformed = self.pages = 0
        self.truncated = False
        self.last_page = None  # the last page header, for its `oldest` and `newest`
        self._schemas = _protocol_schemas(validate, schema_directory)
        self._queue = collections.deque()  # (topic, envelope, body) from pages, not yet delivered
        self._overlap = {}  # producer -> [last seq from the journal, runs [[lo, hi], ...] of its seqs]
        self._error = None
        self.live = after is None and since is None
        self.token = None if self.live else "sync." + uuid.uuid4().hex
        if not self.live:  # checked before any socket exists, so that a refusal leaves none open
            first = {"type": "catchup.request", "version": 1, "token": self.token}
            if after is not None:
                first["after"] = after
            if since not in (None, "all"):
                first["since"] = since
            first.update(topics=self.prefixes, limit=limit)
            _check_request(self._schemas, first)
        self._context = context or zmq.Context.instance()
        self.socket = self._context.socket(zmq.SUB)
        self.socket.setsockopt(zmq.LINGER, 0)
        if high_water_mark is not None:
            self.socket.setsockopt(zmq.RCVHWM, high_water_mark)
        if uses_curve(self.endpoint):
            apply_curve(self.socket, self.curve)
        # Connect first, then subscribe: subscriptions made before connect() are sent in the
        # order of ZeroMQ's prefix tree, where the token ("\0...") comes first, and the hub
        # could see it before the prefixes. After connect() each goes out in turn.
        self.socket.connect(self.endpoint)
        for prefix in self.prefixes:
            self.socket.setsockopt(zmq.SUBSCRIBE, prefix.encode())
        self.catchup = None
        if self.live:
            return
        self.socket.setsockopt(zmq.SUBSCRIBE, b"\0" + self.token.encode())
        self.catchup = self._context.socket(zmq.DEALER)
        self.catchup.setsockopt(zmq.LINGER, 0)
        if uses_curve(self.catchup_endpoint):
            apply_curve(self.catchup, self.curve)
        self.catchup.connect(self.catchup_endpoint)
        self._request(first)

    @property
    def position(self):
        """Producer -> the last sequence number delivered (a copy): what to pass back as `after`."""
        return dict(self.gaps.last_seen)

    def _request(self, request):
        request.update(topics=self.prefixes, limit=self.limit)
        _check_request(self._schemas, request)
        self.catchup.send(json.dumps(request, separators=(",", ":")).encode())
        self._page_deadline = time.monotonic() + self.timeout

    def _take_page(self):
        header, events = _read_reply(self.catchup, self._schemas)
        self.pages += 1
        self.last_page = header
        if header.get("truncated"):
            self.truncated = True
            if self.on_truncated is not None:
                self.on_truncated(header)
        for topic, body in events:
            event = _parse_event(topic, body)
            if event is None:
                self.malformed += 1
                continue
            self._remember(event[1].producer, event[1].seq)
            self._queue.append(event)
            self.caught_up += 1
        if header["end"]:
            self.live = True
            self.socket.setsockopt(zmq.UNSUBSCRIBE, b"\0" + self.token.encode())
            self.catchup.close(0)
        else:
            self._request({"type": "catchup.request", "version": 1, "cursor": header["next"]})

    def _remember(self, producer, seq):
        """Notes a journal event, so that its live copy is recognised (the overlap).

        13.2 skips live messages at or below the last sequence number the catch-up gave, until
        the first one above it. Keeping the runs of numbers actually given (one run per
        producer, as a rule) also passes on a live message the journal does not have (a topic
        it does not take, numbered in between) and skips the copies of a producer that
        restarted during the join (its old numbers are above its last one)."""
        entry = self._overlap.get(producer)
        if entry is None:
            self._overlap[producer] = [seq, [[seq, seq]]]
            return
        entry[0] = seq
        runs = entry[1]
        if runs[-1][1] + 1 == seq:
            runs[-1][1] = seq
        else:
            runs.append([seq, seq])
            if len(runs) > _OVERLAP_RUNS_MAX:
                del runs[0]

    def _deliver(self, topic, envelope, body):
        self.received += 1
        gap = self.gaps.check(envelope.producer, envelope.seq, topic, envelope.topic_seq)
        message = Message(topic, envelope, body, gap)
        if message.gap is not None and self.on_gap is not None:
            self.on_gap(message.gap, message)
        return message

    def _live(self, frames):
        """The Message for a live message, or None for a duplicate or an unreadable one."""
        event = _parse_event(*frames) if len(frames) == 2 else None
        if event is None:
            self.malformed += 1
            return None
        topic, envelope, body = event
        entry = self._overlap.get(envelope.producer)
        if entry is not None:
            last, runs = entry
            if any(lo <= envelope.seq <= hi for lo, hi in reversed(runs)):
                self.skipped += 1  # the journal gave it already
                if envelope.seq == last:  # its last journal event: what follows is new
                    del self._overlap[envelope.producer]
                return None
            if envelope.seq > last:
                del self._overlap[envelope.producer]
            else:
                # Not in the journal (a topic it does not take) but older than the producer's
                # last journal event: passed on, without moving `position` back.
                self.received += 1
                return Message(topic, envelope, body)
        return self._deliver(topic, envelope, body)

    def receive(self, timeout=None):
        """The next message, from the journal and then live, or None after `timeout` seconds
        (None waits for ever; a page still has its own `timeout`)."""
        if self._error is not None:
            raise self._error
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if self._queue:
                return self._deliver(*self._queue.popleft())
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not self.live:
                wait = max(0.0, self._page_deadline - time.monotonic())
                if remaining is not None:
                    wait = min(wait, remaining)
                if self.catchup.poll(math.ceil(wait * 1000)):
                    try:
                        self._take_page()
                    except CatchupError as e:
                        self._error = e
                        raise
                    continue
                if time.monotonic() >= self._page_deadline:
                    hint = ""
                    if self.curve and uses_curve(self.catchup_endpoint):
                        hint = "; with CURVE, is this client's NAME.key in the server's authorized_keys?"
                    self._error = CatchupTimeout(
                        f"no catch-up reply from {self.catchup_endpoint} within {self.timeout} s "
                        f"(is the daemon running, and new enough to have a catch-up socket{hint})")
                    raise self._error
                if remaining is not None and remaining <= 0:
                    return None
                continue
            if remaining is not None and not self.socket.poll(math.ceil(remaining * 1000)):
                return None
            message = self._live(self.socket.recv_multipart())
            if message is not None:
                return message

    def __iter__(self):
        while True:
            message = self.receive()
            if message is not None:
                yield message

    def close(self):
        self.socket.close(0)
        if self.catchup is not None:
            self.catchup.close(0)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def snapshot(topics=("",), endpoint=None, context=None, timeout=10.0, validate=None, schema_directory=None,
             server_key=None, key=None):
    """The current state from the hub (protocol 13.2, `catchup.snapshot`): a list of Messages,
    the latest region and beacon events per producer and region, in journal order, for the
    topic prefixes `topics`. Raises CatchupError (the hub refused: journal off, ...) or
    CatchupTimeout after `timeout` seconds without a reply. `server_key` and `key` as for
    DurableSubscriber."""
    endpoint = endpoint or default_catchup_endpoint()
    schemas = _protocol_schemas(validate, schema_directory)
    request = {"type": "catchup.snapshot", "version": 1, "topics": _prefixes(topics)}
    _check_request(schemas, request)
    curve = curve_options(server_key, key) if uses_curve(endpoint) else None
    socket = (context or zmq.Context.instance()).socket(zmq.DEALER)
    socket.setsockopt(zmq.LINGER, 0)
    apply_curve(socket, curve)
    try:
        socket.connect(endpoint)
        socket.send(json.dumps(request, separators=(",", ":")).encode())
        if not socket.poll(math.ceil(timeout * 1000)):
            raise CatchupTimeout(f"no snapshot reply from {endpoint} within {timeout} s")
        header, events = _read_reply(socket, schemas)
    finally:
        socket.close(0)
    if not header["end"]:
        raise CatchupError("snapshot reply without end: a snapshot is one page (13.2)")
    messages = []
    for topic, body in events:
        event = _parse_event(topic, body)
        if event is not None:
            messages.append(Message(*event))
    return messages

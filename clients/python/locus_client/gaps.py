"""Sequence gaps per producer, or per producer and topic (docs/protocol.md 4.2)."""

from dataclasses import dataclass

#: Most (producer, topic) positions a GapTracker keeps. Past it all are forgotten and the next
#: message on each topic counts as its first: a gap there may then go unreported, but none is
#: invented, and a subscriber to topics named after what a producer hears (beacons, fleet
#: devices) does not grow without bound.
TOPIC_POSITIONS_MAX = 262144


@dataclass(frozen=True)
class Gap:
    """Messages of `producer` not received between `after` and `seq` (`missed` of them), or a
    restart (`restarted`: the number went back to 1; nothing is known to be lost).

    `topic` is None for a break in the producer's `seq`. Set, the break is in the producer's
    `topic_seq` on that topic, and `after` and `seq` are topic_seq values."""
    producer: str
    after: int
    seq: int
    missed: int
    restarted: bool = False
    topic: str = None


class GapTracker:
    """Follows sequence numbers and reports where they break.

    Each producer numbers its messages 1, 2, 3, … across all its topics (`seq`), and, from
    protocol version 2 on, also per topic (`topic_seq`). Subscribed to everything, a jump in
    `seq` is loss: a slow subscriber's queue overflowed, or the hub dropped messages. Subscribed
    to some prefixes only, a jump in `seq` may just be messages on topics not subscribed to; so
    with `per_topic=True` (what Subscriber and DurableSubscriber pass when filtered) a message
    carrying `topic_seq` is compared with the last one of its producer on its topic, where a jump
    is loss again. A message without `topic_seq` (an older producer) is compared by `seq`, as
    before, and a jump there may be either. A drop back to 1 is a restart (of the producer, or
    with `topic` of that topic's numbering: a producer that numbered more than 131072 topics starts
    them all at 1 again).

    `missed` counts the messages in gaps, per producer; `restarts` the restarts seen, per
    producer (per topic in per-topic mode: a restart seen on two topics counts 2).

    `last_seen`, producer -> the last `seq` received, is kept for every message in both modes:
    it is the position a catch-up resumes from. Save it and pass it back as
    `GapTracker(last_seen)` (or `Subscriber(last_seen=...)`) after your program restarts, and
    the first message of each producer compared by `seq` then shows what was missed while you
    were away; per topic there is no saved position, so the first message of each topic only
    starts the count. `DurableSubscriber(after=...)` asks the hub's journal for what was missed
    with the same mapping (protocol 13.2). `last_topic_seen`, (producer, topic) -> the last
    `topic_seq`, is what per-topic mode compares with (at most TOPIC_POSITIONS_MAX entries).
    """

    def __init__(self, last_seen=None, per_topic=False):
        self.last_seen = dict(last_seen or {})
        self.per_topic = per_topic
        self.last_topic_seen = {}
        self.missed = {}
        self.restarts = {}

    def check(self, producer, seq, topic=None, topic_seq=None):
        """The Gap before this message, or None. `topic` and `topic_seq` (None when the
        envelope has none) are compared in per-topic mode only."""
        last = self.last_seen.get(producer)
        self.last_seen[producer] = seq
        if self.per_topic and topic is not None and topic_seq is not None:
            key = (producer, topic)
            if key not in self.last_topic_seen and len(self.last_topic_seen) >= TOPIC_POSITIONS_MAX:
                self.last_topic_seen.clear()
            last_on_topic = self.last_topic_seen.get(key)
            self.last_topic_seen[key] = topic_seq
            return self._compare(producer, last_on_topic, topic_seq, topic)
        return self._compare(producer, last, seq, None)

    def _compare(self, producer, last, now, topic):
        if last is None or now == last + 1:
            return None
        if now == 1:
            self.restarts[producer] = self.restarts.get(producer, 0) + 1
            return Gap(producer, last, now, 0, restarted=True, topic=topic)
        if now > last + 1:
            n = now - last - 1
            self.missed[producer] = self.missed.get(producer, 0) + n
            return Gap(producer, last, now, n, topic=topic)
        # Going back without restarting: two producers share an id, or a duplicate.
        return Gap(producer, last, now, 0, topic=topic)

    @property
    def missed_total(self):
        return sum(self.missed.values())

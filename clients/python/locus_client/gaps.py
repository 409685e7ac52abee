"""Sequence gaps per producer (docs/protocol.md 4.2)."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Gap:
    """Messages of `producer` not received between `after` and `seq` (`missed` of them), or a
    restart of the producer (`restarted`: seq went back to 1; nothing is known to be lost)."""
    producer: str
    after: int
    seq: int
    missed: int
    restarted: bool = False


class GapTracker:
    """Follows each producer's sequence numbers: 1, 2, 3, … across all its topics.

    A jump is a gap: messages lost (a slow subscriber's queue overflowed, or the hub dropped
    them) or, when subscribed to some prefixes only, published on topics not subscribed to. A
    drop back to 1 is a restart. `missed` counts the messages in gaps, per producer;
    `last_seen` is where each producer was.

    Catch-up: save `last_seen` and pass it back as `GapTracker(last_seen)` (or
    `Subscriber(last_seen=...)`) after your program restarts, and the first message of each
    producer then shows what was missed while you were away. The same mapping, producer -> last
    sequence number received, is what `DurableSubscriber(after=...)` asks the hub's journal for
    (protocol 13.2), to get the missed service events back.
    """

    def __init__(self, last_seen=None):
        self.last_seen = dict(last_seen or {})
        self.missed = {}
        self.restarts = {}

    def check(self, producer, seq):
        """The Gap before this message, or None."""
        last = self.last_seen.get(producer)
        self.last_seen[producer] = seq
        if last is None or seq == last + 1:
            return None
        if seq == 1:
            self.restarts[producer] = self.restarts.get(producer, 0) + 1
            return Gap(producer, last, seq, 0, restarted=True)
        if seq > last + 1:
            n = seq - last - 1
            self.missed[producer] = self.missed.get(producer, 0) + n
            return Gap(producer, last, seq, n)
        # Going back without restarting: two producers share an id, or a duplicate.
        return Gap(producer, last, seq, 0)

    @property
    def missed_total(self):
        return sum(self.missed.values())

/// Inserts `clock.tick`s into a stream of recorded message times and shifts each loop pass
/// forward — shared by `RecordingTimeline` (Locus recordings) and the replay source's other
/// formats, so every replay ticks the same way: ticks fall on whole multiples
/// of the interval since the epoch, a tick at T goes out before the first message later than T,
/// one closing tick follows the last message, and each pass starts one tick after the previous
/// pass's last message so event time never goes back.
public struct TickScheduler {
    public let tickMillis: Int64
    private var nextTick: Int64?
    /// Latest (shifted) message time so far.
    private var lastTime: Int64?
    /// Recorded time of the first message of the first pass, unshifted.
    private var firstTime: Int64?
    /// Added to recorded times after each loop.
    public private(set) var loopOffset: Int64 = 0
    private var sawMessageThisPass = false

    /// Most ticks played for one gap between two messages: a day's worth at the default 1 s.
    /// Past that the rest of the gap is skipped to its last tick. A receiver whose clock jumps
    /// 28 years (gpsd's `mtk-3301` log goes from 1980 to 2008) otherwise meant 880 million
    /// ticks: a replay that never got to its next fix.
    public static let maxTicksPerGap = 86_400

    /// `loopOffset` shifts the first pass (a looping replay continuing after a restart, see
    /// `nextPassesOffset`); it is rounded down to whole ticks, so ticks fall between messages
    /// as in the recording.
    public init(tickInterval: Double, loopOffset: Int64 = 0) {
        tickMillis = max(10, Int64((tickInterval * 1000).rounded()))
        self.loopOffset = (loopOffset / tickMillis) * tickMillis
    }

    /// Once a loop pass has ended: the offset of the pass after the one now starting. A looping
    /// replay stopped at any moment of the pass now starting resumes with it, and never goes
    /// back in event time. nil before the first pass ended (its length is not known yet).
    public private(set) var nextPassesOffset: Int64?

    /// The ticks due before a message recorded at `recorded`, and its shifted time.
    public mutating func message(at recorded: EventTime) -> (ticks: DueTicks, time: EventTime) {
        if firstTime == nil { firstTime = recorded.milliseconds }
        sawMessageThisPass = true
        let t = recorded.milliseconds + loopOffset
        if nextTick == nil { nextTick = (t / tickMillis) * tickMillis + (t % tickMillis == 0 ? 0 : tickMillis) }
        // Time may step back in a recording (receiver glitch); ticks only move forward.
        lastTime = max(lastTime ?? t, t)
        var due = DueTicks(first: nextTick ?? t, count: 0, step: tickMillis)
        if let tick = nextTick, tick < t {
            // Every tick in [tick, t): counted, not listed — a logger switched off for weeks
            // leaves millions of them.
            let n = (t - tick - 1) / tickMillis + 1
            if n > Int64(Self.maxTicksPerGap) {
                // The first day of the gap tick by tick, then its last tick: timeouts that end
                // in the skipped part fire on that one, in order, before the message.
                due.count = Self.maxTicksPerGap + 1
                due.last = tick + (n - 1) * tickMillis
            } else {
                due.count = Int(n)
            }
            nextTick = tick + n * tickMillis
        }
        return (due, EventTime(milliseconds: t))
    }

    /// At the end of a pass: true (and the next pass shifted) if another pass should follow.
    public mutating func endOfPass(loop: Bool) -> Bool {
        guard loop, sawMessageThisPass, let first = firstTime, let last = lastTime else { return false }
        let previous = loopOffset
        loopOffset = (last + tickMillis) - first
        nextPassesOffset = loopOffset + (loopOffset - previous)
        sawMessageThisPass = false
        return true
    }

    /// The tick that closes playback, if one is due.
    public func closingTick() -> EventTime? {
        guard let t = nextTick, let last = lastTime, t <= last + tickMillis else { return nil }
        return EventTime(milliseconds: t)
    }
}

/// The ticks due before a message: `count` times, `step` milliseconds apart from `first`,
/// produced one at a time.
public struct DueTicks: Sequence {
    public var first: Int64
    public var count: Int
    public var step: Int64
    /// For a gap cut short (`TickScheduler.maxTicksPerGap`): the time of the final tick, which
    /// then follows the first `count - 1` directly.
    public var last: Int64?

    public init(first: Int64, count: Int, step: Int64, last: Int64? = nil) {
        self.first = first
        self.count = count
        self.step = step
        self.last = last
    }

    public var isEmpty: Bool { count == 0 }

    public struct Iterator: IteratorProtocol {
        var upcoming: Int64
        var remaining: Int
        let step: Int64
        let last: Int64?

        public mutating func next() -> EventTime? {
            guard remaining > 0 else { return nil }
            if remaining == 1, let last {
                remaining = 0
                return EventTime(milliseconds: last)
            }
            defer { upcoming += step; remaining -= 1 }
            return EventTime(milliseconds: upcoming)
        }
    }

    public func makeIterator() -> Iterator { Iterator(upcoming: first, remaining: count, step: step, last: last) }
    public var underestimatedCount: Int { count }
}

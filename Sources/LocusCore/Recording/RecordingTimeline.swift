/// Turns a recording into the ordered stream the bus would carry: the recorded messages, with
/// `clock.tick`s inserted in recorded time. Shared by the replay source (which paces it) and
/// `locus replay` (which feeds it straight into services), so both see the same sequence.
///
/// Ticks fall on whole multiples of `tickInterval` since the epoch: a tick at time T is emitted
/// before the first message later than T, and after the last message one final tick follows, so
/// timeouts that end within a tick of the end of the recording still fire.
public struct RecordingTimeline {
    public enum Item {
        case message(topic: String, envelope: Envelope)
        case tick(EventTime)
        /// A line that could not be used, with why (counted and skipped by callers).
        case skipped(line: Int, reason: String)
    }

    private let reader: LineReader
    private let topics: [String]
    private let registry: PayloadRegistry
    private let tickMillis: Int64
    private let loop: Bool
    private var nextTick: Int64?
    /// Latest (shifted) message time so far.
    private var lastTime: Int64?
    /// Recorded time of the file's first message, unshifted.
    private var fileFirstTime: Int64?
    /// Added to recorded times after each loop so that event time never goes backwards.
    private var loopOffset: Int64 = 0
    private var pending: [Item] = []
    private var finished = false
    private var sawMessageThisPass = false

    public init(reader: LineReader, topics: [String], tickInterval: Double, loop: Bool = false,
                registry: PayloadRegistry = PayloadRegistry()) {
        self.reader = reader
        self.topics = topics
        self.tickMillis = max(10, Int64((tickInterval * 1000).rounded()))
        self.loop = loop
        self.registry = registry
    }

    public mutating func next() -> Item? {
        if !pending.isEmpty { return pending.removeFirst() }
        if finished { return nil }
        while true {
            switch reader.next() {
            case .end:
                if loop, sawMessageThisPass, let first = fileFirstTime, let last = lastTime {
                    // The next pass starts one tick after the last message.
                    loopOffset = (last + tickMillis) - first
                    sawMessageThisPass = false
                    reader.rewind()
                    continue
                }
                finished = true
                if let t = nextTick, let last = lastTime, t <= last + tickMillis {
                    return .tick(EventTime(milliseconds: t))
                }
                return nil
            case .tooLong:
                return .skipped(line: reader.lineNumber, reason: "line longer than \(reader.maxLineBytes) bytes")
            case .text(let bytes):
                let topic: String, body: [UInt8]
                do {
                    (topic, body) = try RecordingLine.split(bytes)
                } catch {
                    return .skipped(line: reader.lineNumber, reason: "not a recording line: \(error)")
                }
                guard topics.contains(where: { topic.hasPrefix($0) }) else { continue }
                guard Topic.isValid(topic) else { return .skipped(line: reader.lineNumber, reason: "invalid topic '\(topic)'") }
                var envelope: Envelope
                do {
                    envelope = try EnvelopeCodec.decode(body, registry: registry)
                } catch {
                    return .skipped(line: reader.lineNumber, reason: "\(error)")
                }
                if fileFirstTime == nil { fileFirstTime = envelope.time.milliseconds }
                sawMessageThisPass = true
                let t = envelope.time.milliseconds + loopOffset
                envelope.time = EventTime(milliseconds: t)
                if nextTick == nil { nextTick = (t / tickMillis) * tickMillis + (t % tickMillis == 0 ? 0 : tickMillis) }
                // Time may step back in a recording (receiver glitch); ticks only move forward.
                if let last = lastTime { lastTime = max(last, t) } else { lastTime = t }
                while let tick = nextTick, tick < t {
                    pending.append(.tick(EventTime(milliseconds: tick)))
                    nextTick = tick + tickMillis
                }
                pending.append(.message(topic: topic, envelope: envelope))
                return pending.removeFirst()
            }
        }
    }
}

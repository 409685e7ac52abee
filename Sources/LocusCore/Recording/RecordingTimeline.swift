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
    private let loop: Bool
    private var ticks: TickScheduler
    /// Ticks still to hand out before `held`, the message that made them due.
    private var due: DueTicks.Iterator?
    private var held: Item?
    private var finished = false

    /// `loopOffset` shifts the first pass (`TickScheduler.init(tickInterval:loopOffset:)`).
    public init(reader: LineReader, topics: [String], tickInterval: Double, loop: Bool = false,
                registry: PayloadRegistry = PayloadRegistry(), loopOffset: Int64 = 0) {
        self.reader = reader
        self.topics = topics
        self.ticks = TickScheduler(tickInterval: tickInterval, loopOffset: loopOffset)
        self.loop = loop
        self.registry = registry
    }

    /// `TickScheduler.nextPassesOffset` of this timeline's ticks.
    public var nextPassesOffset: Int64? { ticks.nextPassesOffset }

    public mutating func next() -> Item? {
        if due != nil {
            if let t = due!.next() { return .tick(t) }
            due = nil
        }
        if let h = held {
            held = nil
            return h
        }
        if finished { return nil }
        while true {
            switch reader.next() {
            case .end:
                if ticks.endOfPass(loop: loop) {
                    reader.rewind()
                    continue
                }
                finished = true
                return ticks.closingTick().map { .tick($0) }
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
                let (dueTicks, shifted) = ticks.message(at: envelope.time)
                envelope.time = shifted
                let message = Item.message(topic: topic, envelope: envelope)
                guard !dueTicks.isEmpty else { return message }
                held = message
                var iterator = dueTicks.makeIterator()
                let first = iterator.next()
                due = iterator
                return .tick(first!)
            }
        }
    }
}

/// What the daemon dropped lately (`status.drops`, topic `status.locus.drops`): published by
/// the runtime at most once per `hub.status_interval`, and only when a drop counter moved.
/// Counters are named `place.reason`: `hub.<reason>` (docs/protocol.md 7), `control.<refusal>`,
/// `<plugin>.slow_consumer`, `<plugin>.undecodable`, `<plugin>.send_dropped`.
public struct DropReport: Payload, Equatable {
    public static let eventType = "status.drops"
    public static let schemaVersion = 1

    /// Seconds of wall time since the previous report (or the daemon's start).
    public var interval: Double
    /// What each counter that moved counted in that time.
    public var dropped: [String: UInt64]
    /// Every non-zero counter since the daemon started.
    public var totals: [String: UInt64]

    public init(interval: Double, dropped: [String: UInt64], totals: [String: UInt64]) {
        self.interval = interval
        self.dropped = dropped
        self.totals = totals
    }

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key("interval"); w.double(interval, fractionDigits: 3)
        w.key("dropped"); Self.write(dropped, to: &w)
        w.key("totals"); Self.write(totals, to: &w)
        w.endObject()
    }

    private static func write(_ counts: [String: UInt64], to w: inout JSONWriter) {
        w.beginObject()
        for (k, v) in counts.sorted(by: { $0.key < $1.key }) {
            w.key(k); w.uint64(v)
        }
        w.endObject()
    }

    public init(from r: inout JSONReader) throws {
        var interval: Double?, dropped: [String: UInt64]?, totals: [String: UInt64]?
        try r.readObject { r, k in
            if k == "interval" { interval = try r.readDouble() }
            else if k == "dropped" { dropped = try Self.readCounts(&r) }
            else if k == "totals" { totals = try Self.readCounts(&r) }
            else { try r.skipValue() }
        }
        guard let interval, let dropped, let totals else { throw r.error("status.drops needs interval, dropped, totals") }
        self.init(interval: interval, dropped: dropped, totals: totals)
    }

    private static func readCounts(_ r: inout JSONReader) throws -> [String: UInt64] {
        var out: [String: UInt64] = [:]
        try r.readObject { r, k in
            let n = try r.readInt64()
            guard n >= 0 else { throw r.error("a count must not be negative") }
            out[k.string] = UInt64(n)
        }
        return out
    }
}

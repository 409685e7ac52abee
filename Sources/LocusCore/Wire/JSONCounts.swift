/// A JSON object of counters (`{"hub.bad_payload": 3}`), as `status.drops` carries them: names
/// in sorted order, so equal counts give equal bytes.
extension JSONWriter {
    public mutating func counts(_ counts: [String: UInt64]) {
        beginObject()
        for (k, v) in counts.sorted(by: { $0.key < $1.key }) {
            key(k); uint64(v)
        }
        endObject()
    }
}

extension JSONReader {
    /// Reads an object of non-negative integer counters.
    public mutating func readCounts() throws -> [String: UInt64] {
        var out: [String: UInt64] = [:]
        try readObject { r, k in
            let n = try r.readInt64()
            guard n >= 0 else { throw r.error("a count must not be negative") }
            out[k.string] = UInt64(n)
        }
        return out
    }
}

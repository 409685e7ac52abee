/// Topic grammar: lower-case segments of `[a-z0-9_-]`, separated by dots, most general first
/// (`obs.fix.gps0`, `region.enter.home`). A subscriber selects with a ZeroMQ prefix match, so a
/// prefix that ends in a dot (`region.enter.`) selects whole segments.
public enum Topic {
    /// Longest topic accepted on the bus, in bytes.
    public static let maxLength = 255

    /// True if `topic` is a complete topic: one or more non-empty segments.
    public static func isValid(_ topic: String) -> Bool {
        var t = topic
        return t.withUTF8 { isValid($0) }
    }

    public static func isValid(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !b.isEmpty, b.count <= maxLength else { return false }
        var segmentLength = 0
        for c in b {
            if c == 0x2E {
                if segmentLength == 0 { return false }
                segmentLength = 0
            } else if isSegmentByte(c) {
                segmentLength += 1
            } else {
                return false
            }
        }
        return segmentLength > 0
    }

    /// True if `prefix` is usable as a subscription: empty (everything), a valid topic, or a
    /// valid topic followed by a dot.
    public static func isValidPrefix(_ prefix: String) -> Bool {
        if prefix.isEmpty { return true }
        if prefix.hasSuffix(".") { return isValid(String(prefix.dropLast())) }
        return isValid(prefix)
    }

    /// True if `segment` can stand as one topic segment (plugin ids, region ids).
    public static func isValidSegment(_ segment: String) -> Bool {
        !segment.isEmpty && segment.utf8.count <= 64 && segment.utf8.allSatisfy(isSegmentByte)
    }

    @inline(__always) static func isSegmentByte(_ c: UInt8) -> Bool {
        (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) || c == 0x5F || c == 0x2D
    }

    /// Joins segments: `Topic.make("obs.fix", id)` → `obs.fix.gps0`.
    public static func make(_ parts: String...) -> String { parts.joined(separator: ".") }

    /// Whether a subscription prefix and a produced topic pattern can meet: either the produced
    /// topics start with the prefix, or the prefix narrows what is produced.
    /// True if the topic's bytes start with `prefix` (a subscription's match, on raw frames).
    @inline(__always)
    public static func hasPrefix(_ topic: UnsafeRawBufferPointer, _ prefix: [UInt8]) -> Bool {
        guard topic.count >= prefix.count else { return false }
        for k in 0..<prefix.count where topic[k] != prefix[k] { return false }
        return true
    }

    public static func prefix(_ subscription: String, canMatch produced: String) -> Bool {
        subscription.hasPrefix(produced) || produced.hasPrefix(subscription)
    }
}

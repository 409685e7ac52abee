import Foundation

/// The producer and sequence number of an envelope body (docs/protocol.md 4), read without
/// decoding the rest: the catch-up scan needs them for every record it considers.
public struct EnvelopeOrigin: Equatable, Sendable {
    public var producer: String
    public var seq: UInt64

    public init(producer: String, seq: UInt64) {
        self.producer = producer
        self.seq = seq
    }

    /// nil if the body has no string `producer` and integer `seq` at its top level.
    public static func read(_ body: UnsafeRawBufferPointer) -> EnvelopeOrigin? {
        fast(body) ?? general(body)
    }

    private static let producerKey = Array(",\"producer\":\"".utf8)
    private static let seqKey = Array(",\"seq\":".utf8)

    /// The layout Locus writes: `{"type":"…","version":N,"producer":"…","seq":N,…` without
    /// escapes in type and producer.
    static func fast(_ b: UnsafeRawBufferPointer) -> EnvelopeOrigin? {
        guard b.count > 9, b[0] == 0x7B, b[1] == 0x22, b[2] == 0x74 else { return nil } // {"t
        var i = 9 // after {"type":"
        while i < b.count, b[i] != 0x22 { if b[i] == 0x5C { return nil }; i += 1 }
        // ,"version":N
        guard let p = find(producerKey, in: b, from: i, within: 32) else { return nil }
        var j = p + producerKey.count
        let start = j
        while j < b.count, b[j] != 0x22 { if b[j] == 0x5C { return nil }; j += 1 }
        guard j < b.count else { return nil }
        let producer = String(decoding: UnsafeRawBufferPointer(rebasing: b[start..<j]), as: UTF8.self)
        j += 1
        guard j + seqKey.count <= b.count, (0..<seqKey.count).allSatisfy({ b[j + $0] == seqKey[$0] }) else { return nil }
        j += seqKey.count
        var seq: UInt64 = 0
        var digits = 0
        while j < b.count, b[j] >= 0x30, b[j] <= 0x39, digits < 19 {
            seq = seq * 10 + UInt64(b[j] - 0x30)
            j += 1
            digits += 1
        }
        guard digits > 0, j < b.count, b[j] == 0x2C || b[j] == 0x7D else { return nil }
        return EnvelopeOrigin(producer: producer, seq: seq)
    }

    private static func find(_ needle: [UInt8], in b: UnsafeRawBufferPointer, from: Int, within: Int) -> Int? {
        var k = from
        let end = min(b.count - needle.count, from + within)
        while k <= end {
            if b[k] == needle[0], (1..<needle.count).allSatisfy({ b[k + $0] == needle[$0] }) { return k }
            k += 1
        }
        return nil
    }

    /// Any other layout the hub accepted (white space, key order, escapes), read as
    /// `EnvelopeCodec.decode` reads it: other members skipped without decoding (a value the hub
    /// forwards, such as a string with a lone UTF-16 surrogate escape, must not hide the
    /// producer — the hub's check for reserved producers relies on this), the last of a
    /// repeated key counting.
    static func general(_ b: UnsafeRawBufferPointer) -> EnvelopeOrigin? {
        var reader = JSONReader(b.bindMemory(to: UInt8.self))
        var producer: String?
        var seq: UInt64?
        do {
            guard try reader.nextKind() == .object, try reader.enterObject() else { return nil }
            repeat {
                let key = try reader.readMemberKey()
                if key == "producer", try reader.nextKind() == .string {
                    producer = try reader.readString()
                } else if key == "seq", try reader.nextKind() == .number, let v = try? reader.readInt64(), v >= 0 {
                    seq = UInt64(v)
                } else {
                    try reader.skipValue()
                }
            } while try reader.nextMember()
            try reader.expectEnd()
        } catch {
            return nil
        }
        guard let producer, let seq else { return nil }
        return EnvelopeOrigin(producer: producer, seq: seq)
    }
}

/// The byte layout of one journal record (docs/protocol.md 13.1), little-endian:
/// `length` u32 | CRC-32C u32 | index u64 | appended ms i64 | topic length u16 | topic | body,
/// where `length` and the CRC cover everything after the first 8 bytes.
public enum JournalRecord {
    /// Bytes before the topic.
    public static let headerBytes = 26
    /// `length` of a record with an empty topic and body.
    static let minLength = 18
    /// Largest `length` accepted when reading: a longer one is damage, not a message (the hub
    /// never forwards bodies over 64 MiB).
    static let maxLength = 18 + 65_535 + 64 * 1024 * 1024
    /// The 8 bytes every segment file starts with.
    public static let segmentMagic: [UInt8] = Array("LOCUSJ1\n".utf8)

    /// Appends one record to `buffer`.
    static func append(index: UInt64, appendedMs: Int64, topic: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer,
                       to buffer: inout [UInt8]) {
        let length = minLength + topic.count + body.count
        let start = buffer.count
        buffer.reserveCapacity(start + 8 + length)
        put32(UInt32(length), &buffer)
        put32(0, &buffer) // the CRC, filled in below
        put64(index, &buffer)
        put64(UInt64(bitPattern: appendedMs), &buffer)
        buffer.append(UInt8(topic.count & 0xFF))
        buffer.append(UInt8(topic.count >> 8))
        buffer.append(contentsOf: topic)
        buffer.append(contentsOf: body)
        let crc = buffer.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[(start + 8)...])) }
        buffer[start + 4] = UInt8(crc & 0xFF)
        buffer[start + 5] = UInt8((crc >> 8) & 0xFF)
        buffer[start + 6] = UInt8((crc >> 16) & 0xFF)
        buffer[start + 7] = UInt8(crc >> 24)
    }

    /// What lies at the start of `bytes`.
    public enum Parsed {
        /// A whole, intact record of `size` bytes.
        case record(JournalEntry, size: Int)
        /// Fewer bytes than the record needs: the end of what was written so far (or a tail a kill cut off).
        case incomplete
        /// A length out of range or a CRC that does not match.
        case damaged(String)
    }

    /// Parses the record at the start of `bytes` (the entry's buffers point into `bytes`).
    public static func parse(_ bytes: UnsafeRawBufferPointer) -> Parsed {
        guard bytes.count >= 8 else { return .incomplete }
        let length = Int(get32(bytes, 0))
        guard length >= minLength, length <= maxLength else { return .damaged("record length \(length) is out of range") }
        guard bytes.count >= 8 + length else { return .incomplete }
        let body = UnsafeRawBufferPointer(rebasing: bytes[8..<(8 + length)])
        guard CRC32C.checksum(body) == get32(bytes, 4) else { return .damaged("record checksum does not match") }
        let topicLength = Int(bytes[24]) | Int(bytes[25]) << 8
        guard minLength + topicLength <= length else { return .damaged("topic length \(topicLength) exceeds the record") }
        let entry = JournalEntry(index: get64(bytes, 8), appendedMs: Int64(bitPattern: get64(bytes, 16)),
                                 topic: UnsafeRawBufferPointer(rebasing: bytes[headerBytes..<(headerBytes + topicLength)]),
                                 body: UnsafeRawBufferPointer(rebasing: bytes[(headerBytes + topicLength)..<(8 + length)]))
        return .record(entry, size: 8 + length)
    }

    @inline(__always) static func put32(_ v: UInt32, _ b: inout [UInt8]) {
        b.append(UInt8(v & 0xFF)); b.append(UInt8((v >> 8) & 0xFF)); b.append(UInt8((v >> 16) & 0xFF)); b.append(UInt8(v >> 24))
    }
    @inline(__always) static func put64(_ v: UInt64, _ b: inout [UInt8]) {
        put32(UInt32(truncatingIfNeeded: v), &b)
        put32(UInt32(truncatingIfNeeded: v >> 32), &b)
    }
    @inline(__always) static func get32(_ b: UnsafeRawBufferPointer, _ at: Int) -> UInt32 {
        UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
    }
    @inline(__always) static func get64(_ b: UnsafeRawBufferPointer, _ at: Int) -> UInt64 {
        UInt64(get32(b, at)) | UInt64(get32(b, at + 4)) << 32
    }
}

/// One journaled message. `topic` and `body` are only valid during the call that hands it out.
public struct JournalEntry {
    /// Position in the journal: 1 for the first record ever, +1 per record.
    public var index: UInt64
    /// Milliseconds since 1970 (UTC) when the hub appended it.
    public var appendedMs: Int64
    public var topic: UnsafeRawBufferPointer
    public var body: UnsafeRawBufferPointer
}

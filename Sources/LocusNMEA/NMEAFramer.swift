/// Splits a byte stream, fed in arbitrary chunks, into checksummed NMEA 0183 sentences.
///
/// - A sentence starts at `$` and ends at LF or CR (so LF and CRLF both work). A `$` or `!` in
///   the middle of a line restarts the sentence there: leading garbage and binary noise before it
///   are dropped (counted as `noise`, or `truncated` when they were an unfinished sentence).
/// - At most `maxSentenceLength` bytes are buffered; a longer line is dropped whole, however long
///   (a 10 MB line without newline costs no memory).
/// - `*hh` must match the XOR of the bytes between `$` and `*` (NMEA 0183 §5.2.1).
/// - `!` lines (AIS `!AIVDM`/`!AIVDO`) and `#` comment lines are counted and skipped.
public struct NMEAFramer {
    public struct Options: Sendable {
        /// Longest sentence kept, `$` to checksum inclusive. NMEA allows 82 bytes; real
        /// receivers (u-blox, Quectel) write longer ones, so the default leaves room.
        public var maxSentenceLength: Int
        /// Accept sentences without `*hh` (some old receivers omit it; gpsd 3.22 accepts them).
        public var acceptMissingChecksum: Bool

        /// `maxSentenceLength` is raised to at least 16.
        public init(maxSentenceLength: Int = 256, acceptMissingChecksum: Bool = false) {
            self.maxSentenceLength = max(16, maxSentenceLength)
            self.acceptMissingChecksum = acceptMissingChecksum
        }
    }

    private enum State { case lineStart, sentence, overlong, comment, junk }

    public let options: Options
    /// Counters of what was accepted and why the rest was dropped.
    public private(set) var statistics = NMEAFramerStatistics()
    private var storage: NMEALineStorage
    private var count = 0
    private var state = State.lineStart

    /// Allocates the line buffer (`maxSentenceLength` bytes) once.
    public init(options: Options = Options()) {
        self.options = options
        storage = NMEALineStorage(capacity: options.maxSentenceLength)
    }

    /// Scans `bytes` from `offset` to the end of the next valid sentence and returns it, or nil
    /// once `bytes` is used up (a partial sentence is kept for the next call). The view is valid
    /// until the framer is used again.
    public mutating func next(in bytes: UnsafeRawBufferPointer, offset: inout Int) -> NMEASentenceView? {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy(count: count) }
        let buf = storage.bytes, cap = storage.capacity
        guard let src = bytes.baseAddress else { return nil }
        let end = bytes.count
        while offset < end {
            if state == .sentence {
                // Inside a sentence (nearly every byte): find where it ends or restarts and copy
                // the run at once, instead of going through the state machine byte by byte.
                var p = offset
                // Words without a byte below 0x25 are skipped whole; the rest byte by byte.
                while p + 8 <= end, NMEAByteScan.bytesBelowDollarPlusOne(NMEAByteScan.load(src + p)) == 0 { p += 8 }
                while p < end {
                    let c = src.load(fromByteOffset: p, as: UInt8.self)
                    if c <= 0x24 {
                        if c == 0x0A || c == 0x0D || c == 0x24 || c == 0x21 { break }
                    } else if p + 8 <= end, p & 7 == 0,
                              NMEAByteScan.bytesBelowDollarPlusOne(NMEAByteScan.load(src + p)) == 0 {
                        p += 8
                        continue
                    }
                    p += 1
                }
                let run = p - offset
                if run > 0 {
                    if count + run <= cap {
                        (buf + count).update(from: (src + offset).assumingMemoryBound(to: UInt8.self), count: run)
                        count += run
                    } else {
                        statistics.overlong += 1
                        state = .overlong
                        count = 0
                    }
                    offset = p
                    continue
                }
            }
            let c = src.load(fromByteOffset: offset, as: UInt8.self)
            offset += 1
            switch c {
            case 0x0A, 0x0D:
                let s = state
                state = .lineStart
                switch s {
                case .sentence:
                    let n = count
                    count = 0
                    if let v = finish(length: n) { return v }
                case .comment: statistics.comments += 1
                case .junk: statistics.noise += 1
                case .lineStart, .overlong: break
                }
            case _ where (c == 0x24 || c == 0x21) && state != .comment: // '$' or '!' starts a sentence (not inside a comment)
                if state == .sentence { statistics.truncated += 1 } else if state == .junk { statistics.noise += 1 }
                state = .sentence
                buf[0] = c
                count = 1
            default:
                switch state {
                case .sentence:
                    if count < cap {
                        buf[count] = c
                        count += 1
                    } else {
                        statistics.overlong += 1
                        state = .overlong
                        count = 0
                    }
                case .lineStart:
                    if c == 0x23 { state = .comment } else if c != 0x20 && c != 0x09 { state = .junk }
                case .overlong, .comment, .junk: break
                }
            }
        }
        return nil
    }

    /// Drops an unterminated sentence at end of input (a log cut mid-line), counting it.
    public mutating func finish() {
        if state == .sentence { statistics.truncated += 1 }
        state = .lineStart
        count = 0
    }

    /// Calls `body` for each sentence in `bytes` (a convenience over `next(in:offset:)`).
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, _ body: (NMEASentenceView) -> Void) {
        var offset = 0
        while let s = next(in: bytes, offset: &offset) { body(s) }
    }

    /// Validates `storage.bytes[0..<n]` (starting with `$` or `!`) and splits it into fields.
    private mutating func finish(length n: Int) -> NMEASentenceView? {
        let buf = storage.bytes
        if buf[0] == 0x21 {
            statistics.encapsulated += 1
            return nil
        }
        // Trailing spaces after the checksum occur in some logs.
        var end = n
        while end > 1, buf[end - 1] == 0x20 || buf[end - 1] == 0x09 { end -= 1 }
        if end >= 5, buf[end - 3] == 0x2A, let v = finishChecksummed(end: end) { return v }
        // One pass: checksum, character check and field starts. Field k spans
        // starts[k] ..< starts[k+1]-1 (the comma, or the body end + 1).
        let starts = storage.fieldStarts
        var fields = 0
        starts[0] = 1
        var star = -1, sum: UInt8 = 0
        var i = 1
        while i < end {
            let c = buf[i]
            if c == 0x2A { star = i; break }
            guard c >= 0x20, c <= 0x7E else {
                statistics.invalidCharacters += 1
                return nil
            }
            if c == 0x2C {
                fields += 1
                starts[fields] = Int32(i + 1)
            }
            sum ^= c
            i += 1
        }
        let bodyEnd: Int
        if star >= 0 {
            guard end - star == 3, let hi = hex(buf[star + 1]), let lo = hex(buf[star + 2]) else {
                statistics.badChecksum += 1
                return nil
            }
            guard hi << 4 | lo == sum else {
                statistics.badChecksum += 1
                return nil
            }
            bodyEnd = star
        } else {
            guard options.acceptMissingChecksum else {
                statistics.missingChecksum += 1
                return nil
            }
            statistics.acceptedWithoutChecksum += 1
            bodyEnd = end
        }
        guard bodyEnd > 1 else {
            statistics.noise += 1
            return nil
        }
        fields += 1
        starts[fields] = Int32(bodyEnd + 1)
        statistics.sentences += 1
        return NMEASentenceView(base: buf, starts: starts, fieldCount: fields, length: end)
    }

    /// The usual case, `$…*hh` with nothing wrong, eight bytes at a time: the checksum as the
    /// XOR of whole words folded to a byte, the character check and the comma positions from
    /// `NMEAByteScan` masks. nil when anything is off (a bad character, a `*` in the body, a
    /// wrong checksum); the byte-by-byte pass then finds and counts what it was.
    @inline(__always) private mutating func finishChecksummed(end: Int) -> NMEASentenceView? {
        let buf = storage.bytes, starts = storage.fieldStarts
        let bodyEnd = end - 3
        guard let hi = hex(buf[end - 2]), let lo = hex(buf[end - 1]) else { return nil }
        var fields = 0
        starts[0] = 1
        var acc: UInt64 = 0, bad: UInt64 = 0
        var i = 1
        while i + 8 <= bodyEnd {
            let w = NMEAByteScan.load(buf + i)
            acc ^= w
            bad |= NMEAByteScan.controlBytes(w) | NMEAByteScan.nonPrintableHighBytes(w) | NMEAByteScan.bytes(w, equalTo: 0x2A)
            var commas = NMEAByteScan.bytes(w, equalTo: 0x2C)
            while commas != 0 {
                fields += 1
                starts[fields] = Int32(i + commas.trailingZeroBitCount >> 3 + 1)
                commas &= commas &- 1
            }
            i += 8
        }
        guard bad == 0 else { return nil }
        acc ^= acc >> 32
        acc ^= acc >> 16
        acc ^= acc >> 8
        var sum = UInt8(truncatingIfNeeded: acc)
        while i < bodyEnd {
            let c = buf[i]
            guard c >= 0x20, c <= 0x7E, c != 0x2A else { return nil }
            if c == 0x2C {
                fields += 1
                starts[fields] = Int32(i + 1)
            }
            sum ^= c
            i += 1
        }
        guard hi << 4 | lo == sum else { return nil }
        fields += 1
        starts[fields] = Int32(bodyEnd + 1)
        statistics.sentences += 1
        return NMEASentenceView(base: buf, starts: starts, fieldCount: fields, length: end)
    }

    @inline(__always) private func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x41...0x46: return c - 0x41 + 10
        case 0x61...0x66: return c - 0x61 + 10
        default: return nil
        }
    }
}

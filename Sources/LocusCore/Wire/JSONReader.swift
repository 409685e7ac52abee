/// What went wrong while reading JSON, with the byte offset where it was noticed.
public struct JSONReadError: Error, Sendable, CustomStringConvertible {
    public var offset: Int
    public var reason: String
    public var description: String { "invalid JSON at byte \(offset): \(reason)" }
}

/// An object key as it appears in the input, compared without allocating.
///
/// Also used for string values drawn from a fixed set (enum raw values), see
/// `JSONReader.readStringToken()`.
///
/// It holds no reference (so passing and dropping keys costs no reference counting): a key
/// with escapes keeps its raw text, already validated, and is decoded when compared.
public struct JSONKey {
    /// The text between the quotes, as it appears in the input.
    @usableFromInline let bytes: UnsafeBufferPointer<UInt8>
    /// Set when the text contains escapes; then it is compared by its decoded value.
    @usableFromInline let escaped: Bool

    @usableFromInline init(bytes: UnsafeBufferPointer<UInt8>, escaped: Bool) {
        self.bytes = bytes
        self.escaped = escaped
    }

    /// Payload decoders compare each key against a chain of names, so this must be cheap:
    /// inlined into the caller, where the name's length and bytes are constants, it is a length
    /// compare (which rejects most names) and then one or two word-sized loads.
    @inlinable @inline(__always)
    public static func == (k: JSONKey, s: StaticString) -> Bool {
        guard _fastPath(!k.escaped) else { return k.decodedEquals(s) }
        let n = s.utf8CodeUnitCount
        return k.bytes.count == n && jsonBytesEqual(k.bytes.baseAddress!, s.utf8Start, n)
    }

    /// The rare escaped key, compared as text (out of line, so callers stay small).
    @usableFromInline @inline(never) func decodedEquals(_ s: StaticString) -> Bool { string == s.description }

    public var string: String {
        guard escaped else { return String(decoding: bytes, as: UTF8.self) }
        // The raw text sits between its quotes in the input, and `readKey` has checked that it
        // decodes, so this cannot fail.
        var r = JSONReader(UnsafeBufferPointer(start: bytes.baseAddress! - 1, count: bytes.count + 2))
        return (try? r.readString()) ?? ""
    }
}

/// `a[0..<n] == b[0..<n]`, comparing up to eight bytes per load. Lengths below 8 use two
/// overlapping loads of the largest size that fits (e.g. bytes 0-3 and 2-5 for n = 6).
@inlinable @inline(__always)
func jsonBytesEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Bool {
    let a = UnsafeRawPointer(a), b = UnsafeRawPointer(b)
    @inline(__always) func same<T: FixedWidthInteger>(_ offset: Int, _: T.Type) -> Bool {
        a.loadUnaligned(fromByteOffset: offset, as: T.self) == b.loadUnaligned(fromByteOffset: offset, as: T.self)
    }
    if n >= 8 {
        var i = 0
        while i + 8 < n {
            if !same(i, UInt64.self) { return false }
            i += 8
        }
        return same(n - 8, UInt64.self)
    }
    if n >= 4 { return same(0, UInt32.self) && same(n - 4, UInt32.self) }
    if n >= 2 { return same(0, UInt16.self) && same(n - 2, UInt16.self) }
    return n == 0 || a.load(as: UInt8.self) == b.load(as: UInt8.self)
}

/// How many of the `n` bytes at `p` can stand in a JSON string as they are: the index of the
/// first `"`, `\` or control character, or `n`. Used to find the end of a string when reading,
/// and whether one needs escaping when writing.
///
/// Eight bytes at a time, with the usual bit tricks: a per-byte test is computed for all lanes
/// of a word at once, leaving the high bit of each lane that hits. Borrows only spill from a
/// hit into the lanes above it, so the lowest flagged lane (first in memory: words are loaded
/// little-endian) is exact, and it is the only one used.
@inline(__always)
func jsonPlainPrefixLength(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int {
    let raw = UnsafeRawPointer(p)
    var i = 0
    while i + 8 <= n {
        let w = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quote = w ^ (ones &* 0x22), backslash = w ^ (ones &* 0x5C)
        // "Lane is zero" for the two xors, and "lane < 0x20" for the word itself.
        let hits = ((quote &- ones) & ~quote | (backslash &- ones) & ~backslash | (w &- ones &* 0x20) & ~w)
            & 0x8080_8080_8080_8080
        if hits != 0 { return i + hits.trailingZeroBitCount >> 3 }
        i += 8
    }
    while i < n {
        let c = p[i]
        if c == 0x22 || c == 0x5C || c < 0x20 { return i }
        i += 1
    }
    return n
}

/// A pull parser over UTF-8 JSON held in memory: the caller walks the document it expects,
/// reading typed values directly into its own fields. Used for the hot wire types and by the
/// hub to validate every message (`skipValue` checks the full grammar of what it skips).
///
/// The buffer must outlive the reader; use `JSONReader.read(_:_:)` to scope it.
public struct JSONReader {
    public let buffer: UnsafeBufferPointer<UInt8>
    public private(set) var position = 0
    var depth = 0
    /// Nesting deeper than this is rejected, so hostile input cannot exhaust the stack.
    public static let maxDepth = 64

    public init(_ buffer: UnsafeBufferPointer<UInt8>) { self.buffer = buffer }

    /// Runs `body` with a reader over `bytes`; fails if anything but white space follows the value(s) read.
    public static func read<T>(_ bytes: [UInt8], _ body: (inout JSONReader) throws -> T) throws -> T {
        try bytes.withUnsafeBufferPointer { buf in
            var r = JSONReader(buf)
            let v = try body(&r)
            try r.expectEnd()
            return v
        }
    }

    public static func read<T>(_ buf: UnsafeBufferPointer<UInt8>, _ body: (inout JSONReader) throws -> T) throws -> T {
        var r = JSONReader(buf)
        let v = try body(&r)
        try r.expectEnd()
        return v
    }

    public func error(_ reason: String) -> JSONReadError { JSONReadError(offset: position, reason: reason) }

    @inline(__always) mutating func skipWhitespace() {
        while position < buffer.count {
            let c = buffer[position]
            // Compact JSON has no white space: one compare settles every byte above the space.
            if c > 0x20 { return }
            if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { position += 1 } else { return }
        }
    }

    @inline(__always) mutating func peek() -> UInt8? {
        skipWhitespace()
        return position < buffer.count ? buffer[position] : nil
    }

    public mutating func expectEnd() throws {
        skipWhitespace()
        if position != buffer.count { throw error("unexpected data after the value") }
    }

    @inline(__always) mutating func consume(_ c: UInt8) throws {
        guard peek() == c else { throw expected(c) }
        position += 1
    }

    /// Out of line: the message is built only when input is bad, and not at every `consume`.
    @inline(never) func expected(_ c: UInt8) -> JSONReadError { error("expected '\(Character(Unicode.Scalar(c)))'") }

    /// What kind of value comes next.
    public enum ValueKind { case object, array, string, number, bool, null }

    @inline(__always) public mutating func nextKind() throws -> ValueKind {
        guard let c = peek() else { throw error("unexpected end of input") }
        switch c {
        case 0x7B: return .object
        case 0x5B: return .array
        case 0x22: return .string
        case 0x74, 0x66: return .bool
        case 0x6E: return .null
        case 0x2D, 0x30...0x39: return .number
        default: throw error("unexpected character")
        }
    }

    // MARK: containers

    /// Reads an object, calling `body` once per key; `body` must read or skip the value.
    @inline(__always)
    public mutating func readObject(_ body: (inout JSONReader, JSONKey) throws -> Void) throws {
        let outer = depth
        defer { depth = outer }
        guard try enterObject() else { return }
        repeat {
            let key = try readMemberKey()
            try body(&self, key)
        } while try nextMember()
    }

    // The steps of `readObject`, for the hot decoders (fix, envelope), which loop over them
    // instead of passing a closure: the optimiser does not inline a closure as large as
    // `Fix.init(from:)`'s, and calling it per key, with the decoder's locals held in memory
    // for it, cost about a tenth of decoding a fix.
    //
    //     if try r.enterObject() {
    //         repeat {
    //             let k = try r.readMemberKey()
    //             if k == "a" { a = try r.readDouble() } else { try r.skipValue() }
    //         } while try r.nextMember()
    //     }
    //
    // Unlike `readObject`, these leave the nesting depth raised when a read throws; the reader
    // is then not used any further (the caller's decode fails as a whole).

    /// Consumes `{`; returns false if the object is empty (its `}` consumed too).
    @inline(__always) public mutating func enterObject() throws -> Bool {
        try consume(0x7B)
        depth += 1
        guard depth <= JSONReader.maxDepth else { throw tooDeep() }
        if peek() == 0x7D {
            position += 1
            depth -= 1
            return false
        }
        return true
    }

    /// Reads a member's key and the colon after it.
    @inline(__always) public mutating func readMemberKey() throws -> JSONKey {
        guard peek() == 0x22 else { throw error("expected an object key") }
        let key = try readKey()
        // Compact JSON has the colon right after the key's closing quote.
        if position < buffer.count && buffer[position] == 0x3A {
            position += 1
        } else {
            try consume(0x3A)
        }
        return key
    }

    /// After a member's value: consumes `,` (returns true) or the closing `}` (returns false).
    @inline(__always) public mutating func nextMember() throws -> Bool {
        guard let c = peek() else { throw error("unterminated object") }
        position += 1
        if c == 0x2C { return true }
        if c == 0x7D {
            depth -= 1
            return false
        }
        throw error("expected ',' or '}'")
    }

    @inline(never) func tooDeep() -> JSONReadError { error("nesting deeper than \(JSONReader.maxDepth)") }

    /// Reads an array, calling `body` once per element; `body` must read or skip it.
    @inline(__always)
    public mutating func readArray(_ body: (inout JSONReader) throws -> Void) throws {
        try consume(0x5B)
        depth += 1
        guard depth <= JSONReader.maxDepth else { throw tooDeep() }
        defer { depth -= 1 }
        if peek() == 0x5D { position += 1; return }
        while true {
            try body(&self)
            guard let c = peek() else { throw error("unterminated array") }
            position += 1
            if c == 0x5D { return }
            if c != 0x2C { throw error("expected ',' or ']'") }
        }
    }

    // MARK: eight bytes at a time
    //
    // Strings and numbers are scanned a word (8 bytes) at a time where 8 bytes remain (see
    // `jsonPlainPrefixLength` for the method; for digits, carries also only spill upwards).

    @inline(__always) func word(at i: Int) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(buffer.baseAddress!).loadUnaligned(fromByteOffset: i, as: UInt64.self))
    }

    /// Index of the first byte at or after `i` that ends the plain run of a string: `"`, `\`
    /// or a control character (or `buffer.count`).
    @inline(__always) func stringRunEnd(from i: Int) -> Int {
        i >= buffer.count ? i : i + jsonPlainPrefixLength(buffer.baseAddress! + i, buffer.count - i)
    }

    /// Reads the decimal digits at `position` into `mantissa` (`mantissa * 10^n + digits`,
    /// wrapping past 19 digits: the caller checks the count). Returns the number of digits.
    @inline(__always) mutating func readDigits(into mantissa: inout UInt64) -> Int {
        let start = position
        while position + 8 <= buffer.count {
            let w = word(at: position)
            // A lane is a digit if adding 0x46 does not reach 0x80 and subtracting 0x30 does not borrow.
            let nonDigit = ((w &+ 0x4646_4646_4646_4646) | (w &- 0x3030_3030_3030_3030)) & 0x8080_8080_8080_8080
            let n = nonDigit == 0 ? 8 : nonDigit.trailingZeroBitCount >> 3
            if n > 0 {
                // Shift the n digits to the top lanes (zeros below act as leading zeros), then
                // combine lanes pairwise: 8 digits to 4 two-digit numbers to 2 four-digit to one.
                var v = (w &- 0x3030_3030_3030_3030) << UInt64(64 - 8 * n)
                v = v &* 10 &+ (v >> 8)
                v = ((v & 0x0000_00FF_0000_00FF) &* (100 &+ (1_000_000 << 32))
                    &+ ((v >> 16) & 0x0000_00FF_0000_00FF) &* (1 &+ (10_000 << 32))) >> 32
                mantissa = mantissa &* JSONReader.powerOfTen(n) &+ (v & 0xFFFF_FFFF)
                position += n
            }
            if n < 8 { return position - start }
        }
        while position < buffer.count, case let d = buffer[position] &- 0x30, d < 10 {
            mantissa = mantissa &* 10 &+ UInt64(d)
            position += 1
        }
        return position - start
    }

    /// 10^n for n in 0...8.
    @inline(__always) static func powerOfTen(_ n: Int) -> UInt64 {
        switch n {
        case 0: return 1
        case 1: return 10
        case 2: return 100
        case 3: return 1000
        case 4: return 10_000
        case 5: return 100_000
        case 6: return 1_000_000
        case 7: return 10_000_000
        default: return 100_000_000
        }
    }

    // MARK: scalars

    /// Reads a string value as a `JSONKey` (its text as it appears in the input), for values
    /// from a fixed set (enum raw values), which can then be matched without creating a String.
    @inline(__always) public mutating func readStringToken() throws -> JSONKey {
        guard peek() == 0x22 else { throw error("expected a string") }
        return try readKey()
    }

    /// Reads the string at `position` (on its opening quote); validates it as `readString` does.
    @inline(__always) mutating func readKey() throws -> JSONKey {
        let start = position + 1
        let end = stringRunEnd(from: start)
        guard end < buffer.count, buffer[end] == 0x22 else { return try readEscapedKey() }
        position = end + 1
        return JSONKey(bytes: UnsafeBufferPointer(start: buffer.baseAddress! + start, count: end - start), escaped: false)
    }

    /// A key with escapes (or a bad one): checked by decoding it, as `readString` would.
    @inline(never) mutating func readEscapedKey() throws -> JSONKey {
        let start = position + 1
        _ = try readString()
        return JSONKey(bytes: UnsafeBufferPointer(rebasing: buffer[start..<(position - 1)]), escaped: true)
    }

    public mutating func readString() throws -> String {
        guard peek() == 0x22 else { throw error("expected a string") }
        position += 1
        let start = position
        // Fast path: no escapes.
        position = stringRunEnd(from: start)
        if position < buffer.count {
            let c = buffer[position]
            if c == 0x22 {
                let s = String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<position]), as: UTF8.self)
                position += 1
                return s
            }
            if c < 0x20 { throw error("control character in string") }
        }
        var out = Array(buffer[start..<position])
        while position < buffer.count {
            let c = buffer[position]
            position += 1
            switch c {
            case 0x22:
                return String(decoding: out, as: UTF8.self)
            case 0x5C:
                guard position < buffer.count else { throw error("unterminated escape") }
                let e = buffer[position]
                position += 1
                switch e {
                case 0x22, 0x5C, 0x2F: out.append(e)
                case 0x62: out.append(0x08)
                case 0x66: out.append(0x0C)
                case 0x6E: out.append(0x0A)
                case 0x72: out.append(0x0D)
                case 0x74: out.append(0x09)
                case 0x75:
                    var scalar = try readHex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard position + 1 < buffer.count, buffer[position] == 0x5C, buffer[position + 1] == 0x75 else {
                            throw error("unpaired surrogate")
                        }
                        position += 2
                        let low = try readHex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("invalid surrogate pair") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(scalar) {
                        throw error("unpaired surrogate")
                    }
                    out.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
                default: throw error("invalid escape")
                }
            default:
                if c < 0x20 { throw error("control character in string") }
                out.append(c)
            }
        }
        throw error("unterminated string")
    }

    mutating func readHex4() throws -> UInt32 {
        guard position + 4 <= buffer.count else { throw error("short \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = buffer[position]
            position += 1
            let d: UInt32
            switch c {
            case 0x30...0x39: d = UInt32(c - 0x30)
            case 0x41...0x46: d = UInt32(c - 0x41 + 10)
            case 0x61...0x66: d = UInt32(c - 0x61 + 10)
            default: throw error("invalid \\u escape")
            }
            v = v << 4 | d
        }
        return v
    }

    /// Skips a string without decoding it, validating escapes and control characters.
    mutating func skipString() throws {
        position += 1
        while position < buffer.count {
            let c = buffer[position]
            position += 1
            if c == 0x22 { return }
            if c < 0x20 { throw error("control character in string") }
            if c == 0x5C {
                guard position < buffer.count else { break }
                let e = buffer[position]
                position += 1
                switch e {
                case 0x22, 0x5C, 0x2F, 0x62, 0x66, 0x6E, 0x72, 0x74: break
                case 0x75: _ = try readHex4()
                default: throw error("invalid escape")
                }
            }
        }
        throw error("unterminated string")
    }

    static let exactPowers: [Double] = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                                        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22]

    /// Reads a JSON number. A mantissa of up to 2^53 with at most 19 digits and a decimal
    /// exponent within ±22 takes an exact fast path (both are exact doubles, so one division or
    /// multiplication rounds correctly: Clinger's fast path); other forms go through the
    /// standard library's correctly rounded parser. Either way the result is the correctly
    /// rounded double.
    public mutating func readDouble() throws -> Double {
        guard let first = peek() else { throw error("expected a number") }
        let start = position
        let negative = first == 0x2D
        if negative { position += 1 }
        let end = buffer.count
        // Digits accumulate into `mantissa` (it wraps past 19 digits, but then `digits > 19`
        // sends the number to the slow path, which parses the text again).
        var mantissa: UInt64 = 0
        let intStart = position
        let intDigits = readDigits(into: &mantissa)
        guard intDigits > 0 else { throw error("expected a digit") }
        if intDigits > 1 && buffer[intStart] == 0x30 { throw error("leading zero in number") }
        var fracDigits = 0
        if position < end, buffer[position] == 0x2E {
            position += 1
            fracDigits = readDigits(into: &mantissa)
            guard fracDigits > 0 else { throw error("expected a digit after '.'") }
        }
        var exponent = 0
        if position < end, buffer[position] == 0x65 || buffer[position] == 0x45 {
            position += 1
            var expNegative = false
            if position < end, buffer[position] == 0x2B || buffer[position] == 0x2D {
                expNegative = buffer[position] == 0x2D
                position += 1
            }
            var n = 0
            var e = 0
            while position < end, case let c = buffer[position], c >= 0x30, c <= 0x39 {
                if e < 100_000 { e = e * 10 + Int(c - 0x30) }
                n += 1
                position += 1
            }
            guard n > 0 else { throw error("expected exponent digits") }
            exponent = expNegative ? -e : e
        }
        let scale = exponent - fracDigits
        if intDigits + fracDigits <= 19 && mantissa <= 1 << 53 && scale >= -22 && scale <= 22 {
            var v = Double(mantissa)
            if scale < 0 { v /= JSONReader.exactPowers[-scale] } else { v *= JSONReader.exactPowers[scale] }
            return negative ? -v : v
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<position]), as: UTF8.self)
        // `Double("1e999")` is infinity, not nil. JSON has no infinities, and one read as a value
        // would travel on into events (a `location.update` whose `lat` cannot be written back).
        guard let v = Double(text), v.isFinite else { throw JSONReadError(offset: start, reason: "number out of range") }
        return v
    }

    /// Reads an integer (no fraction or exponent).
    public mutating func readInt64() throws -> Int64 {
        guard let first = peek() else { throw error("expected an integer") }
        let start = position
        let negative = first == 0x2D
        if negative { position += 1 }
        let end = buffer.count
        let digitsStart = position
        var v: Int64 = 0
        while position < end, case let d = buffer[position] &- 0x30, d < 10 {
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(Int64(d))
            if o1 || o2 { throw JSONReadError(offset: start, reason: "integer out of range") }
            v = a
            position += 1
        }
        let n = position - digitsStart
        guard n > 0 else { throw error("expected an integer") }
        if n > 1 && buffer[digitsStart] == 0x30 { throw JSONReadError(offset: start, reason: "leading zero in number") }
        if position < end, case let c = buffer[position], c == 0x2E || c == 0x65 || c == 0x45 {
            throw JSONReadError(offset: start, reason: "expected an integer")
        }
        return negative ? -v : v
    }

    public mutating func readInt() throws -> Int { Int(try readInt64()) }

    public mutating func readBool() throws -> Bool {
        if match("true") { return true }
        if match("false") { return false }
        throw error("expected true or false")
    }

    /// Consumes `null` if it comes next. Called before every optional value, so it settles the
    /// usual case (anything else comes next) with one byte compare.
    @inline(__always)
    public mutating func readNull() -> Bool {
        skipWhitespace()
        guard position + 4 <= buffer.count, buffer[position] == 0x6E, buffer[position + 1] == 0x75,
              buffer[position + 2] == 0x6C, buffer[position + 3] == 0x6C else { return false }
        position += 4
        return true
    }

    mutating func match(_ word: StaticString) -> Bool {
        skipWhitespace()
        let n = word.utf8CodeUnitCount
        guard position + n <= buffer.count else { return false }
        for i in 0..<n where buffer[position + i] != word.utf8Start[i] { return false }
        position += n
        return true
    }

    public mutating func readTime() throws -> EventTime {
        guard peek() == 0x22 else { throw error("expected a timestamp string") }
        let start = position + 1
        // The form Locus writes, quotes included: 26 bytes, parsed in place. The fast parser
        // checks every byte, so the token has no escapes; anything else takes the general path.
        if start + 25 <= buffer.count, buffer[start + 24] == 0x22,
           let t = EventTime.parseCanonicalISO8601(buffer.baseAddress! + start) {
            position = start + 25
            return t
        }
        try skipString()
        guard let t = EventTime.parseISO8601(UnsafeBufferPointer(rebasing: buffer[start..<(position - 1)])) else {
            throw JSONReadError(offset: start, reason: "expected an ISO 8601 UTC timestamp")
        }
        return t
    }

    /// Validates and skips one value of any kind.
    public mutating func skipValue() throws {
        switch try nextKind() {
        case .object: try readObject { r, _ in try r.skipValue() }
        case .array: try readArray { r in try r.skipValue() }
        case .string: try skipString()
        case .number: _ = try readDouble()
        case .bool: _ = try readBool()
        case .null: _ = readNull()
        }
    }

    /// Validates one value and returns the bytes it spans.
    public mutating func readRawValue() throws -> UnsafeBufferPointer<UInt8> {
        skipWhitespace()
        let start = position
        try skipValue()
        return UnsafeBufferPointer(rebasing: buffer[start..<position])
    }

    // MARK: optional-aware helpers

    /// Reads a number or `null` (as nil).
    @inline(__always) public mutating func readOptionalDouble() throws -> Double? { readNull() ? nil : try readDouble() }
    @inline(__always) public mutating func readOptionalInt() throws -> Int? { readNull() ? nil : try readInt() }
    public mutating func readOptionalString() throws -> String? { readNull() ? nil : try readString() }
    public mutating func readOptionalBool() throws -> Bool? { readNull() ? nil : try readBool() }
}

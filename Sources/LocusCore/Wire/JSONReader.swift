/// What went wrong while reading JSON, with the byte offset where it was noticed.
public struct JSONReadError: Error, Sendable, CustomStringConvertible {
    public var offset: Int
    public var reason: String
    public var description: String { "invalid JSON at byte \(offset): \(reason)" }
}

/// An object key as it appears in the input, compared without allocating.
public struct JSONKey {
    @usableFromInline let bytes: UnsafeBufferPointer<UInt8>
    /// Set when the key contained escapes; then `decoded` holds its text.
    @usableFromInline let decoded: String?

    @inlinable public static func == (k: JSONKey, s: StaticString) -> Bool {
        if let d = k.decoded { return d == s.description }
        guard k.bytes.count == s.utf8CodeUnitCount else { return false }
        return memcmp(k.bytes.baseAddress!, s.utf8Start, k.bytes.count) == 0
    }

    public var string: String { decoded ?? String(decoding: bytes, as: UTF8.self) }
}

@usableFromInline func memcmp(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Int32 {
    var i = 0
    while i < n {
        if a[i] != b[i] { return a[i] < b[i] ? -1 : 1 }
        i += 1
    }
    return 0
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
        guard peek() == c else { throw error("expected '\(Character(Unicode.Scalar(c)))'") }
        position += 1
    }

    /// What kind of value comes next.
    public enum ValueKind { case object, array, string, number, bool, null }

    public mutating func nextKind() throws -> ValueKind {
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
    public mutating func readObject(_ body: (inout JSONReader, JSONKey) throws -> Void) throws {
        try consume(0x7B)
        depth += 1
        guard depth <= JSONReader.maxDepth else { throw error("nesting deeper than \(JSONReader.maxDepth)") }
        defer { depth -= 1 }
        if peek() == 0x7D { position += 1; return }
        while true {
            guard peek() == 0x22 else { throw error("expected an object key") }
            let key = try readKey()
            try consume(0x3A)
            try body(&self, key)
            guard let c = peek() else { throw error("unterminated object") }
            position += 1
            if c == 0x7D { return }
            if c != 0x2C { throw error("expected ',' or '}'") }
        }
    }

    /// Reads an array, calling `body` once per element; `body` must read or skip it.
    public mutating func readArray(_ body: (inout JSONReader) throws -> Void) throws {
        try consume(0x5B)
        depth += 1
        guard depth <= JSONReader.maxDepth else { throw error("nesting deeper than \(JSONReader.maxDepth)") }
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

    // MARK: scalars

    mutating func readKey() throws -> JSONKey {
        position += 1 // opening quote
        let start = position
        while position < buffer.count {
            let c = buffer[position]
            if c == 0x22 {
                let k = JSONKey(bytes: UnsafeBufferPointer(rebasing: buffer[start..<position]), decoded: nil)
                position += 1
                return k
            }
            if c == 0x5C || c < 0x20 { break }
            position += 1
        }
        position = start - 1
        let s = try readString()
        return JSONKey(bytes: UnsafeBufferPointer(rebasing: buffer[start..<start]), decoded: s)
    }

    public mutating func readString() throws -> String {
        guard peek() == 0x22 else { throw error("expected a string") }
        position += 1
        let start = position
        // Fast path: no escapes.
        while position < buffer.count {
            let c = buffer[position]
            if c == 0x22 {
                let s = String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<position]), as: UTF8.self)
                position += 1
                return s
            }
            if c == 0x5C { break }
            if c < 0x20 { throw error("control character in string") }
            position += 1
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

    /// Reads a JSON number. Up to 15 significant digits with no exponent beyond ±22 use an exact
    /// fast path (an integer divided by an exact power of ten rounds correctly); other forms go
    /// through the standard library's correctly rounded parser.
    public mutating func readDouble() throws -> Double {
        guard let first = peek() else { throw error("expected a number") }
        let start = position
        var negative = false
        if first == 0x2D { negative = true; position += 1 }
        var mantissa: UInt64 = 0
        var significant = 0
        var intDigits = 0
        var fracDigits = 0
        var exponent = 0
        var leadingZero = false
        while position < buffer.count, case let c = buffer[position], c >= 0x30, c <= 0x39 {
            if intDigits == 0 && c == 0x30 { leadingZero = true }
            if mantissa != 0 || c != 0x30 { significant += 1 }
            if significant <= 19 { mantissa = mantissa &* 10 &+ UInt64(c - 0x30) }
            intDigits += 1
            position += 1
        }
        guard intDigits > 0 else { throw error("expected a digit") }
        if leadingZero && intDigits > 1 { throw error("leading zero in number") }
        if position < buffer.count, buffer[position] == 0x2E {
            position += 1
            while position < buffer.count, case let c = buffer[position], c >= 0x30, c <= 0x39 {
                if mantissa != 0 || c != 0x30 { significant += 1 }
                if significant <= 19 { mantissa = mantissa &* 10 &+ UInt64(c - 0x30); fracDigits += 1 }
                position += 1
            }
            guard fracDigits > 0 || buffer[position - 1] != 0x2E else { throw error("expected a digit after '.'") }
        }
        var hasExponent = false
        if position < buffer.count, buffer[position] == 0x65 || buffer[position] == 0x45 {
            hasExponent = true
            position += 1
            var expNegative = false
            if position < buffer.count, buffer[position] == 0x2B || buffer[position] == 0x2D {
                expNegative = buffer[position] == 0x2D
                position += 1
            }
            var n = 0
            var e = 0
            while position < buffer.count, case let c = buffer[position], c >= 0x30, c <= 0x39 {
                if e < 100_000 { e = e * 10 + Int(c - 0x30) }
                n += 1
                position += 1
            }
            guard n > 0 else { throw error("expected exponent digits") }
            exponent = expNegative ? -e : e
        }
        let scale = exponent - fracDigits
        if significant <= 15 && scale >= -22 && scale <= 22 {
            var v = Double(mantissa)
            if scale < 0 { v /= JSONReader.exactPowers[-scale] } else { v *= JSONReader.exactPowers[scale] }
            return negative ? -v : v
        }
        _ = hasExponent
        let text = String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<position]), as: UTF8.self)
        guard let v = Double(text) else { throw JSONReadError(offset: start, reason: "number out of range") }
        return v
    }

    /// Reads an integer (no fraction or exponent).
    public mutating func readInt64() throws -> Int64 {
        guard let first = peek() else { throw error("expected an integer") }
        let start = position
        var negative = false
        if first == 0x2D { negative = true; position += 1 }
        var v: Int64 = 0
        var n = 0
        while position < buffer.count, case let c = buffer[position], c >= 0x30, c <= 0x39 {
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(Int64(c - 0x30))
            if o1 || o2 { throw JSONReadError(offset: start, reason: "integer out of range") }
            v = a
            n += 1
            position += 1
        }
        guard n > 0 else { throw error("expected an integer") }
        if n > 1 && buffer[start + (negative ? 1 : 0)] == 0x30 { throw JSONReadError(offset: start, reason: "leading zero in number") }
        if position < buffer.count, [0x2E, 0x65, 0x45].contains(buffer[position]) {
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

    /// Consumes `null` if it comes next.
    public mutating func readNull() -> Bool { match("null") }

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
    public mutating func readOptionalDouble() throws -> Double? { readNull() ? nil : try readDouble() }
    public mutating func readOptionalInt() throws -> Int? { readNull() ? nil : try readInt() }
    public mutating func readOptionalString() throws -> String? { readNull() ? nil : try readString() }
    public mutating func readOptionalBool() throws -> Bool? { readNull() ? nil : try readBool() }
}

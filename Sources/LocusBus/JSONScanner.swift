import LocusCore

/// A JSON grammar checker over raw bytes, for the hub's hot path: it validates without building
/// values, without closures or thrown errors, and without allocating. It accepts exactly what
/// `JSONReader` accepts (RFC 8259 grammar, nesting limited to `JSONReader.maxDepth` counted from
/// the outermost value), so the hub refuses what subscribers could not decode.
///
/// The buffer must outlive the scanner.
struct JSONScanner {
    let p: UnsafePointer<UInt8>
    let n: Int
    var i = 0
    /// Where and why scanning failed (set by the first failing check).
    var failureOffset = 0
    var failureReason: StaticString = ""
    /// Whether the last string passed by `string()` contained an escape.
    var lastStringEscaped = false

    init(_ buffer: UnsafeBufferPointer<UInt8>) {
        // A zero-length buffer may have no base address; point at a harmless byte instead.
        p = buffer.baseAddress ?? UnsafePointer(JSONScanner.emptyByte)
        n = buffer.count
    }

    // Never written after its initialisation: shared read-only by every scanner.
    nonisolated(unsafe) private static let emptyByte: UnsafeMutablePointer<UInt8> = {
        let b = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        b.initialize(to: 0)
        return b
    }()

    @inline(__always) mutating func fail(_ reason: StaticString) -> Bool {
        failureOffset = i
        failureReason = reason
        return false
    }

    @inline(__always) mutating func skipWhitespace() {
        while i < n {
            let c = p[i]
            guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
            i &+= 1
        }
    }

    /// The first byte of the next value if it can start one (`{ [ " - 0-9 t f n`); nil, with
    /// the failure set, at the end of input or before any other byte — `JSONReader.nextKind`'s rule.
    @inline(__always) mutating func valueStart() -> UInt8? {
        guard let c = peek() else { _ = fail("unexpected end of input"); return nil }
        switch c {
        case 0x7B, 0x5B, 0x22, 0x2D, 0x30...0x39, 0x74, 0x66, 0x6E: return c
        default: _ = fail("unexpected character"); return nil
        }
    }

    /// "invalid JSON at byte N: reason", as `JSONReadError` words it.
    var failureDescription: String { "invalid JSON at byte \(failureOffset): \(failureReason)" }

    /// The next byte after white space, or nil at the end (the position is left on it).
    @inline(__always) mutating func peek() -> UInt8? {
        skipWhitespace()
        return i < n ? p[i] : nil
    }

    /// Validates a string starting at the opening quote; leaves `i` after the closing quote.
    /// Sets `lastStringEscaped` if it contained a backslash escape.
    @inline(__always) mutating func string() -> Bool {
        let r = Self.stringEnd(p, n, i)
        guard r.reason == nil else { return failAt(r.end, r.reason!) }
        lastStringEscaped = r.escaped
        i = r.end
        return true
    }

    /// Validates an object key. Keys are held to `JSONReader.readString`'s stricter rule for
    /// escapes (no unpaired UTF-16 surrogates), because `JSONReader` decodes every key.
    @inline(__always) mutating func key() -> Bool {
        let start = i
        let r = Self.stringEnd(p, n, i)
        guard r.reason == nil else { return failAt(r.end, r.reason!) }
        if r.escaped && !Self.decodes(p, start, r.end) { return failAt(start, "invalid escape in key") }
        i = r.end
        return true
    }

    /// True if the string token `start..<end` decodes with `JSONReader.readString`.
    static func decodes(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        (try? JSONReader.read(UnsafeBufferPointer(start: p + start, count: end - start)) { try $0.readString() }) != nil
    }

    /// Validates a number: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    @inline(__always) mutating func number() -> Bool {
        let r = Self.numberEnd(p, n, i)
        guard r.reason == nil else { return failAt(r.end, r.reason!) }
        i = r.end
        return true
    }

    @inline(__always) mutating func failAt(_ offset: Int, _ reason: StaticString) -> Bool {
        i = offset
        return fail(reason)
    }

    /// The string starting with the quote at `start`: the index after its closing quote, or
    /// the offset and reason of what is wrong with it. Static so the hot loops keep positions
    /// in registers.
    @inline(__always)
    static func stringEnd(_ p: UnsafePointer<UInt8>, _ n: Int, _ start: Int) -> (end: Int, reason: StaticString?, escaped: Bool) {
        var i = start &+ 1
        var escaped = false
        while true {
            // Eight bytes at a time to the next quote, backslash or control byte.
            while i &+ 8 <= n {
                let special = ByteMasks.stringSpecials(ByteMasks.word(p, i))
                if special != 0 {
                    i &+= special.trailingZeroBitCount &>> 3
                    break
                }
                i &+= 8
            }
            guard i < n else { return (i, "unterminated string", escaped) }
            let c = p[i]
            if c == 0x22 { return (i &+ 1, nil, escaped) }
            if c < 0x20 { return (i, "control character in string", escaped) }
            if c != 0x5C { i &+= 1; continue } // the tail, checked byte by byte
            escaped = true
            i &+= 1
            guard i < n else { return (i, "unterminated string", escaped) }
            let e = p[i]
            i &+= 1
            switch e {
            case 0x22, 0x5C, 0x2F, 0x62, 0x66, 0x6E, 0x72, 0x74: continue
            case 0x75:
                guard i &+ 4 <= n else { return (i, "short \\u escape", escaped) }
                for k in 0..<4 where !isHex(p[i &+ k]) { return (i &+ k, "invalid \\u escape", escaped) }
                i &+= 4
            default:
                return (i &- 1, "invalid escape", escaped)
            }
        }
    }

    /// The number starting at `start` (a `-` or digit): the index after it, or the offset and
    /// reason of what is wrong with it.
    @inline(__always)
    static func numberEnd(_ p: UnsafePointer<UInt8>, _ n: Int, _ start: Int) -> (end: Int, reason: StaticString?) {
        var i = start
        if p[i] == 0x2D { i &+= 1 }
        let first = i
        i = digitsEnd(p, n, i)
        if i == first { return (i, "expected a digit") }
        if i &- first > 1 && p[first] == 0x30 { return (first, "leading zero in number") }
        let intDigits = i &- first
        if i < n && p[i] == 0x2E {
            let f = i &+ 1
            i = digitsEnd(p, n, f)
            if i == f { return (i, "expected a digit after '.'") }
        }
        var exponent = 0
        if i < n && (p[i] | 0x20) == 0x65 {
            i &+= 1
            let negative = i < n && p[i] == 0x2D
            if i < n && (p[i] == 0x2B || p[i] == 0x2D) { i &+= 1 }
            let e = i
            i = digitsEnd(p, n, e)
            if i == e { return (i, "expected exponent digits") }
            for k in e..<min(i, e &+ 6) { exponent = exponent &* 10 &+ Int(p[k] &- 0x30) }
            if i &- e > 6 { exponent = 1_000_000 }
            if negative { exponent = -exponent }
        }
        // JSONReader refuses a number beyond Double's range (`1e999` would be infinity), so the
        // hub must too, in every layout: one verdict whatever the spacing. The value is below
        // 10^(intDigits + exponent), so only a number where that passes 10^308 is parsed.
        if intDigits &+ exponent > 308 && !finite(p, start, i) { return (start, "number out of range") }
        return (i, nil)
    }

    /// True if the number token `start..<end` is within Double's range, as `JSONReader.readDouble` decides.
    static func finite(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        (try? JSONReader.read(UnsafeBufferPointer(start: p + start, count: end - start)) { try $0.readDouble() }) != nil
    }

    /// The index after the run of ASCII digits starting at `start`.
    @inline(__always)
    static func digitsEnd(_ p: UnsafePointer<UInt8>, _ n: Int, _ start: Int) -> Int {
        var i = start
        while i &+ 8 <= n {
            let other = ByteMasks.nonDigits(ByteMasks.word(p, i))
            if other != 0 { return i &+ (other.trailingZeroBitCount &>> 3) }
            i &+= 8
        }
        while i < n, isDigit(p[i]) { i &+= 1 }
        return i
    }

    /// Eight bytes from `k` (which must leave 8 bytes in the buffer), first byte lowest.
    @inline(__always) func word(at k: Int) -> UInt64 { ByteMasks.word(p, k) }

    /// Reads an integer as `JSONReader.readInt64` does (no fraction or exponent, no leading
    /// zero, within Int64). Returns nil if it is not one; the position is then unspecified.
    @inline(__always) mutating func integer() -> Int64? {
        var negative = false
        if i < n && p[i] == 0x2D { negative = true; i += 1 }
        let start = i
        var v: Int64 = 0
        while i < n, Self.isDigit(p[i]) {
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(Int64(p[i] &- 0x30))
            if o1 || o2 { return nil }
            v = a
            i += 1
        }
        if i == start || (i - start > 1 && p[start] == 0x30) { return nil }
        if i < n && (p[i] == 0x2E || p[i] == 0x65 || p[i] == 0x45) { return nil }
        return negative ? -v : v
    }

    @inline(__always) mutating func literal(_ word: StaticString) -> Bool {
        let len = word.utf8CodeUnitCount
        guard i + len <= n else { return fail("unexpected end of input") }
        let w = word.utf8Start
        for k in 0..<len where p[i + k] != w[k] { return fail("unexpected character") }
        i += len
        return true
    }

    /// Validates an object whose opening brace is at `i`, at `depth` containers around it.
    /// Members with scalar values — nearly all of an envelope — are handled in one tight loop
    /// that expects compact JSON (white space is handled, just not fast); nested containers go
    /// through `value(depth:)`. Works on a local position so it stays in a register.
    @inline(__always) mutating func object(depth: Int) -> Bool {
        guard depth < JSONScanner.maxDepth else { return fail("nesting too deep") }
        let p = self.p, n = self.n
        var i = self.i &+ 1
        @inline(__always) func next(_ i: inout Int) -> UInt8? {
            while i < n {
                let c = p[i]
                guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return c }
                i &+= 1
            }
            return nil
        }
        if next(&i) == 0x7D { self.i = i &+ 1; return true }
        while true {
            guard next(&i) == 0x22 else { return failAt(i, "expected an object key") }
            let key = Self.stringEnd(p, n, i)
            guard key.reason == nil else { return failAt(key.end, key.reason!) }
            if key.escaped && !Self.decodes(p, i, key.end) { return failAt(i, "invalid escape in key") }
            i = key.end
            guard next(&i) == 0x3A else { return failAt(i, "expected ':'") }
            i &+= 1
            guard let c = next(&i) else { return failAt(i, "unexpected end of input") }
            if c == 0x22 {
                let r = Self.stringEnd(p, n, i)
                guard r.reason == nil else { return failAt(r.end, r.reason!) }
                i = r.end
            } else if c &- 0x30 < 10 || c == 0x2D {
                let r = Self.numberEnd(p, n, i)
                guard r.reason == nil else { return failAt(r.end, r.reason!) }
                i = r.end
            } else {
                self.i = i
                guard value(depth: depth &+ 1) else { return false }
                i = self.i
            }
            guard let d = next(&i) else { return failAt(i, "unterminated object") }
            i &+= 1
            if d == 0x2C { continue }
            if d == 0x7D { self.i = i; return true }
            return failAt(i &- 1, "expected ',' or '}'")
        }
    }

    /// Validates one value of any kind at `depth` (the number of containers around it).
    /// Iterative, with the open containers kept as bits (1 = object), so hostile nesting costs
    /// no stack.
    @inline(__always) mutating func value(depth: Int) -> Bool {
        var stack: UInt64 = 0
        var level = 0
        var expectKey = false
        while true {
            // A value, or an object key followed by ':' and then a value.
            guard let c = peek() else { return fail("unexpected end of input") }
            if expectKey {
                guard c == 0x22 else { return fail("expected an object key") }
                guard key() else { return false }
                guard peek() == 0x3A else { return fail("expected ':'") }
                i += 1
                expectKey = false
                continue
            }
            switch c {
            case 0x7B, 0x5B:
                guard depth + level < JSONScanner.maxDepth else { return fail("nesting too deep") }
                level += 1
                stack = stack << 1 | (c == 0x7B ? 1 : 0)
                i += 1
                let close: UInt8 = c == 0x7B ? 0x7D : 0x5D
                if peek() == close {
                    i += 1
                    level -= 1
                    stack >>= 1
                } else {
                    expectKey = c == 0x7B
                    continue
                }
            case 0x22:
                guard string() else { return false }
            case 0x2D, 0x30...0x39:
                guard number() else { return false }
            case 0x74:
                guard literal("true") else { return false }
            case 0x66:
                guard literal("false") else { return false }
            case 0x6E:
                guard literal("null") else { return false }
            default:
                return fail("unexpected character")
            }
            // After a complete value: close containers or move to the next element.
            while true {
                if level == 0 { return true }
                let inObject = stack & 1 == 1
                guard let d = peek() else { return fail(inObject ? "unterminated object" : "unterminated array") }
                i += 1
                if d == 0x2C {
                    expectKey = inObject
                    break
                }
                if d == (inObject ? 0x7D : 0x5D) {
                    level -= 1
                    stack >>= 1
                    continue
                }
                i -= 1
                return fail(inObject ? "expected ',' or '}'" : "expected ',' or ']'")
            }
        }
    }

    static let maxDepth = JSONReader.maxDepth

    @inline(__always) static func isDigit(_ c: UInt8) -> Bool { c &- 0x30 < 10 }

    @inline(__always) static func isHex(_ c: UInt8) -> Bool {
        c &- 0x30 < 10 || (c | 0x20) &- 0x61 < 6
    }
}

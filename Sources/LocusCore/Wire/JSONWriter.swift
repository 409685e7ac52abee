/// Appends compact JSON to a byte buffer without building an intermediate tree.
///
/// The hot event types (fixes, sky views, advertisements, ticks) are encoded with this
/// writer instead of `JSONEncoder`, which is an order of magnitude slower. Commas are placed
/// automatically: call `key(_:)` then one value method, or a value method inside an array.
/// Numbers are written in fixed point with a per-field number of fraction digits (trailing
/// zeros trimmed), which keeps the output short, deterministic and free of exponents.
public struct JSONWriter: Sendable {
    public var bytes: [UInt8]
    @usableFromInline var needsComma = false

    public init(capacity: Int = 384) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    // MARK: structure

    @inlinable public mutating func beginObject() { separate(); bytes.append(0x7B); needsComma = false }
    @inlinable public mutating func endObject() { bytes.append(0x7D); needsComma = true }
    @inlinable public mutating func beginArray() { separate(); bytes.append(0x5B); needsComma = false }
    @inlinable public mutating func endArray() { bytes.append(0x5D); needsComma = true }

    @inlinable mutating func separate() {
        if needsComma { bytes.append(0x2C) }
    }

    /// Writes an object key. The key must be plain ASCII that needs no escaping.
    @inlinable public mutating func key(_ k: StaticString) {
        separate()
        bytes.append(0x22)
        bytes.append(contentsOf: UnsafeBufferPointer(start: k.utf8Start, count: k.utf8CodeUnitCount))
        bytes.append(0x22)
        bytes.append(0x3A)
        needsComma = false
    }

    /// Writes an object key given at run time (escaped as needed).
    public mutating func key(_ k: String) {
        separate()
        appendQuoted(k)
        bytes.append(0x3A)
        needsComma = false
    }

    // MARK: values

    public mutating func string(_ s: String) {
        separate()
        appendQuoted(s)
        needsComma = true
    }

    /// Writes a string value known at compile time to need no escaping.
    @inlinable public mutating func string(_ s: StaticString) {
        separate()
        bytes.append(0x22)
        bytes.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
        bytes.append(0x22)
        needsComma = true
    }

    public mutating func bool(_ v: Bool) {
        separate()
        if v { appendASCII("true") } else { appendASCII("false") }
        needsComma = true
    }

    public mutating func null() {
        separate()
        appendASCII("null")
        needsComma = true
    }

    public mutating func int<T: BinaryInteger>(_ v: T) {
        separate()
        appendInteger(Int64(v))
        needsComma = true
    }

    public mutating func uint64(_ v: UInt64) {
        separate()
        if v <= UInt64(Int64.max) { appendInteger(Int64(v)) } else { appendString(String(v)) }
        needsComma = true
    }

    /// Writes `v` rounded to `fractionDigits` decimals (0...9), trailing zeros trimmed.
    /// Non-finite values are written as `null`: JSON has no NaN or infinity.
    public mutating func double(_ v: Double, fractionDigits: Int) {
        separate()
        appendFixed(v, fractionDigits: fractionDigits)
        needsComma = true
    }

    /// Writes a timestamp as an ISO 8601 string with milliseconds.
    public mutating func time(_ t: EventTime) {
        separate()
        bytes.append(0x22)
        writeISO8601Body(t)
        bytes.append(0x22)
        needsComma = true
    }

    /// Inserts bytes that already form one complete JSON value (for pass-through of payloads).
    public mutating func rawValue<C: Collection>(_ json: C) where C.Element == UInt8 {
        separate()
        bytes.append(contentsOf: json)
        needsComma = true
    }

    // MARK: convenience for optional fields

    public mutating func field(_ k: StaticString, _ v: Double?, fractionDigits: Int) {
        guard let v, v.isFinite else { return }
        key(k); double(v, fractionDigits: fractionDigits)
    }

    public mutating func field(_ k: StaticString, _ v: Int?) {
        guard let v else { return }
        key(k); int(v)
    }

    public mutating func field(_ k: StaticString, _ v: String?) {
        guard let v else { return }
        key(k); string(v)
    }

    public mutating func field(_ k: StaticString, _ v: Bool?) {
        guard let v else { return }
        key(k); bool(v)
    }

    // MARK: primitives

    @usableFromInline mutating func appendASCII(_ s: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    mutating func appendInteger(_ v: Int64) {
        if v < 0 {
            bytes.append(0x2D)
            if v == Int64.min { appendASCII("9223372036854775808"); return }
            appendUnsigned(UInt64(-v))
        } else {
            appendUnsigned(UInt64(v))
        }
    }

    mutating func appendUnsigned(_ v: UInt64) {
        if v < 10 { bytes.append(UInt8(v) + 0x30); return }
        var tmp: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                  UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = 0
        var x = v
        withUnsafeMutableBytes(of: &tmp) { buf in
            while x > 0 {
                buf[19 - n] = UInt8(x % 10) + 0x30
                x /= 10
                n += 1
            }
            bytes.append(contentsOf: buf[(20 - n)...])
        }
    }

    static let powersOfTen: [Double] = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9]

    mutating func appendFixed(_ v: Double, fractionDigits: Int) {
        guard v.isFinite else { appendASCII("null"); return }
        let digits = min(max(fractionDigits, 0), 9)
        let scale = JSONWriter.powersOfTen[digits]
        let scaled = (abs(v) * scale).rounded()
        guard scaled < 9.0e15 else {
            // Too large for exact fixed point: Swift's shortest round-trip form is valid JSON
            // for finite doubles (it may use an exponent, which JSON allows).
            appendString(v.description)
            return
        }
        var units = UInt64(scaled)
        if v < 0 && units != 0 { bytes.append(0x2D) }
        let divisor = UInt64(scale)
        let whole = units / divisor
        units -= whole * divisor
        appendUnsigned(whole)
        guard units != 0 else { return }
        var width = digits
        while units % 10 == 0 { units /= 10; width -= 1 }
        bytes.append(0x2E)
        var pad = width - 1
        var probe = units
        while probe >= 10 { probe /= 10; pad -= 1 }
        while pad > 0 { bytes.append(0x30); pad -= 1 }
        appendUnsigned(units)
    }

    mutating func appendString(_ s: String) {
        var s = s
        s.withUTF8 { bytes.append(contentsOf: $0) }
    }

    static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    mutating func appendQuoted(_ s: String) {
        bytes.append(0x22)
        var s = s
        s.withUTF8 { u in
            var start = 0
            for i in 0..<u.count {
                let c = u[i]
                if c >= 0x20 && c != 0x22 && c != 0x5C { continue }
                if start < i { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: u[start..<i])) }
                start = i + 1
                bytes.append(0x5C)
                switch c {
                case 0x22: bytes.append(0x22)
                case 0x5C: bytes.append(0x5C)
                case 0x0A: bytes.append(0x6E)
                case 0x0D: bytes.append(0x72)
                case 0x09: bytes.append(0x74)
                default:
                    bytes.append(contentsOf: [0x75, 0x30, 0x30, JSONWriter.hex[Int(c >> 4)], JSONWriter.hex[Int(c & 15)]])
                }
            }
            if start < u.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: u[start...])) }
        }
        bytes.append(0x22)
    }

    mutating func two(_ v: Int) {
        bytes.append(UInt8(v / 10) + 0x30)
        bytes.append(UInt8(v % 10) + 0x30)
    }

    mutating func writeISO8601Body(_ t: EventTime) {
        var ms = t.milliseconds
        var days = Int(ms / 86_400_000)
        ms %= 86_400_000
        if ms < 0 { ms += 86_400_000; days -= 1 }
        let (y, mo, d) = CivilCalendar.civilFromDays(days)
        let secs = Int(ms / 1000)
        let frac = Int(ms % 1000)
        if y >= 0 && y <= 9999 {
            two(y / 100); two(y % 100)
        } else {
            appendString(String(y))
        }
        bytes.append(0x2D); two(mo); bytes.append(0x2D); two(d)
        bytes.append(0x54)
        two(secs / 3600); bytes.append(0x3A); two(secs / 60 % 60); bytes.append(0x3A); two(secs % 60)
        bytes.append(0x2E)
        bytes.append(UInt8(frac / 100) + 0x30); two(frac % 100)
        bytes.append(0x5A)
    }
}

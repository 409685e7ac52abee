/// Appends compact JSON to a byte buffer without building an intermediate tree.
///
/// The hot event types (fixes, sky views, advertisements, ticks) are encoded with this
/// writer instead of `JSONEncoder`, which is an order of magnitude slower. Commas are placed
/// automatically: call `key(_:)` then one value method, or a value method inside an array.
/// Numbers are written in fixed point with a per-field number of fraction digits (trailing
/// zeros trimmed), which keeps the output short, deterministic and free of exponents.
///
/// Performance notes (a fix envelope is written about a million times a second):
/// the writer keeps its own growable buffer and writes through a raw pointer. Each public
/// method reserves room for the most it can write (one capacity and one uniqueness check),
/// then stores bytes directly; `[UInt8].append` would repeat both checks for every byte.
/// Copies of a writer share the buffer until one of them writes (copy on write), so value
/// semantics are kept. `bytes` copies the output into an array once, at the end.
///
/// `@unchecked Sendable`: the storage class is a `ManagedBuffer`, which the standard library
/// marks non-Sendable, but a writer only ever writes to storage it references uniquely.
public struct JSONWriter: @unchecked Sendable {
    /// The heap block holding the output; `count` of its `capacity` bytes are written.
    @usableFromInline var storage: JSONWriterStorage
    @usableFromInline var count: Int
    /// The storage's capacity, kept here because reading a class's stored property (the
    /// buffer's header) costs a dynamic exclusivity check, at every write.
    @usableFromInline var capacity: Int
    @usableFromInline var needsComma = false

    public init(capacity: Int = 384) {
        storage = JSONWriterStorage.make(capacity: capacity)
        self.capacity = storage.capacity
        count = 0
    }

    /// The JSON written so far. Reading it copies the bytes into a new array (once per message);
    /// assigning it replaces the buffer's contents.
    public var bytes: [UInt8] {
        get { withUnsafeBytes { Array($0) } }
        set {
            storage = JSONWriterStorage.make(capacity: newValue.count)
            capacity = storage.capacity
            count = 0
            newValue.withUnsafeBufferPointer { appendBytes($0) }
        }
    }

    /// Number of bytes written so far.
    public var byteCount: Int { count }

    /// Forgets what was written, keeping the buffer (for a writer reused as an output buffer).
    public mutating func removeAll() {
        count = 0
        needsComma = false
    }

    /// Ends a line of JSON Lines output: a newline, after which a new top-level value starts.
    public mutating func endLine() {
        appendByte(0x0A)
        needsComma = false
    }

    /// Calls `body` with the bytes written so far, without copying them.
    public func withUnsafeBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: storage.elements, count: count))
    }

    // MARK: buffer

    /// Makes room for `n` more bytes and returns where the next byte goes (`base + count`).
    /// Callers store at most `n` bytes there and then add what they stored to `count`.
    @inlinable @inline(__always)
    mutating func reserve(_ n: Int) -> UnsafeMutablePointer<UInt8> {
        if _slowPath(capacity &- count < n || !isKnownUniquelyReferenced(&storage)) { makeRoom(n) }
        return storage.elements + count
    }

    /// Out of line so the common path of `reserve` stays small: grows the buffer (doubling), or
    /// copies it when another copy of this writer still shares it.
    @usableFromInline @inline(never)
    mutating func makeRoom(_ n: Int) {
        let needed = count + n
        let bigger = JSONWriterStorage.make(capacity: needed <= capacity ? capacity : max(needed, capacity * 2))
        UnsafeMutableRawPointer(bigger.elements).copyMemory(from: storage.elements, byteCount: count)
        storage = bigger
        capacity = bigger.capacity
    }

    /// Reserves room for a value of at most `n` bytes and writes the comma that separates it from
    /// the previous one, if any. Returns where the value's first byte goes.
    @inlinable @inline(__always)
    mutating func beginValue(reserving n: Int) -> UnsafeMutablePointer<UInt8> {
        let p = reserve(n + 1)
        if needsComma {
            p.pointee = 0x2C
            count += 1
            return p + 1
        }
        return p
    }

    @inlinable @inline(__always)
    mutating func appendByte(_ c: UInt8) {
        reserve(1).pointee = c
        count += 1
    }

    @usableFromInline mutating func appendBytes(_ b: UnsafeBufferPointer<UInt8>) {
        guard let src = b.baseAddress, b.count > 0 else { return }
        UnsafeMutableRawPointer(reserve(b.count)).copyMemory(from: src, byteCount: b.count)
        count += b.count
    }

    // MARK: structure

    @inlinable public mutating func beginObject() { beginValue(reserving: 1).pointee = 0x7B; count += 1; needsComma = false }
    @inlinable public mutating func endObject() { appendByte(0x7D); needsComma = true }
    @inlinable public mutating func beginArray() { beginValue(reserving: 1).pointee = 0x5B; count += 1; needsComma = false }
    @inlinable public mutating func endArray() { appendByte(0x5D); needsComma = true }

    @inlinable mutating func separate() {
        if needsComma { appendByte(0x2C) }
    }

    /// Writes an object key. The key must be plain ASCII that needs no escaping.
    ///
    /// (A plain `w.key("lat")` calls the `String` overload, Swift's preferred type for a
    /// literal; `field(_:_:)` and `w.key("lat" as StaticString)` call this one.) Always
    /// inlined, so that for a literal the copy is a few stores of constants.
    @inlinable @inline(__always) public mutating func key(_ k: StaticString) {
        _ = key(k, reservingAfter: 0)
    }

    /// Writes the key and reserves `extra` more bytes for its value, which the caller writes at
    /// the returned address (`base + count`): one capacity check for both.
    @inlinable @inline(__always)
    mutating func key(_ k: StaticString, reservingAfter extra: Int) -> UnsafeMutablePointer<UInt8> {
        assert(JSONWriter.needsNoEscaping(k), "a StaticString key must need no escaping")
        let n = k.utf8CodeUnitCount
        let p = beginValue(reserving: n + 3 + extra)
        p[0] = 0x22
        UnsafeMutableRawPointer(p + 1).copyMemory(from: k.utf8Start, byteCount: n)
        p[n + 1] = 0x22
        p[n + 2] = 0x3A
        count += n + 3
        needsComma = false
        return p + n + 3
    }

    /// Writes an object key given at run time (escaped as needed).
    public mutating func key(_ k: String) {
        separate()
        appendQuoted(k)
        appendByte(0x3A)
        needsComma = false
    }

    // MARK: values

    public mutating func string(_ s: String) {
        finishString(s, at: beginValue(reserving: s.utf8.count + 2))
    }

    /// Writes `s` at `p`, where room for it quoted without escapes (`s.utf8.count + 2`) is
    /// reserved; text that needs escaping reserves more itself.
    @usableFromInline mutating func finishString(_ s: String, at p: UnsafeMutablePointer<UInt8>) {
        // Native strings (all strings on Linux, including small ones) have contiguous UTF-8.
        let written = s.utf8.withContiguousStorageIfAvailable { u -> Bool in
            let n = u.count
            guard n == 0 || jsonPlainPrefixLength(u.baseAddress!, n) == n else { return false }
            p[0] = 0x22
            if n > 0 { UnsafeMutableRawPointer(p + 1).copyMemory(from: u.baseAddress!, byteCount: n) }
            p[n + 1] = 0x22
            count += n + 2
            return true
        }
        if written != true { appendQuoted(s) }
        needsComma = true
    }

    /// Writes UTF-8 text as a string value, escaped as needed (a JSON document kept inside
    /// another as text, as service states keep fixes).
    public mutating func string(utf8 u: UnsafeBufferPointer<UInt8>) {
        separate()
        appendQuoted(utf8: u)
        needsComma = true
    }

    /// Writes a string value known at compile time to need no escaping.
    @inlinable @inline(__always) public mutating func string(_ s: StaticString) {
        assert(JSONWriter.needsNoEscaping(s), "a StaticString value must need no escaping")
        let n = s.utf8CodeUnitCount
        let p = beginValue(reserving: n + 2)
        p[0] = 0x22
        UnsafeMutableRawPointer(p + 1).copyMemory(from: s.utf8Start, byteCount: n)
        p[n + 1] = 0x22
        count += n + 2
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
        let p = beginValue(reserving: 20)
        count += JSONWriter.writeInteger(Int64(v), at: p)
        needsComma = true
    }

    /// `int` for a key written with `key(_:reservingAfter: 20)`.
    @usableFromInline mutating func finishInt(_ v: Int64, at p: UnsafeMutablePointer<UInt8>) {
        count += JSONWriter.writeInteger(v, at: p)
        needsComma = true
    }

    public mutating func uint64(_ v: UInt64) {
        let p = beginValue(reserving: 20)
        count += JSONWriter.writeUnsigned(v, at: p)
        needsComma = true
    }

    /// Writes `v` rounded to `fractionDigits` decimals (0...9), trailing zeros trimmed.
    /// Non-finite values are written as `null`: JSON has no NaN or infinity.
    public mutating func double(_ v: Double, fractionDigits: Int) {
        guard v.isFinite else { null(); return }
        finishDouble(v, fractionDigits: fractionDigits, at: beginValue(reserving: JSONWriter.maxFixedLength))
    }

    /// Writes finite `v` at `p`, where `maxFixedLength` bytes are reserved.
    @usableFromInline mutating func finishDouble(_ v: Double, fractionDigits: Int, at p: UnsafeMutablePointer<UInt8>) {
        if let n = JSONWriter.writeFixed(v, fractionDigits: fractionDigits, at: p) {
            count += n
        } else {
            appendLargeDouble(v)
        }
        needsComma = true
    }

    /// Too large for exact fixed point: Swift's shortest round-trip form is valid JSON for
    /// finite doubles (it may use an exponent, which JSON allows). Out of line: rare.
    @inline(never) mutating func appendLargeDouble(_ v: Double) {
        appendString(v.description)
    }

    /// Writes `v` in the shortest form that reads back as exactly `v` (as `JSONValue` and
    /// `JSONEncoder` write it: no trailing ".0"), for state that must survive a restart bit for
    /// bit. Non-finite values are written as `null`.
    public mutating func exactDouble(_ v: Double) {
        guard v.isFinite else { null(); return }
        if v == v.rounded(.towardZero), abs(v) < 9.0e15 {
            int(Int64(v))
            return
        }
        separate()
        appendString(v.description)
        needsComma = true
    }

    /// Writes a timestamp as an ISO 8601 string with milliseconds.
    public mutating func time(_ t: EventTime) {
        let p = beginValue(reserving: 26)
        p[0] = 0x22
        if JSONWriter.writeISO8601(t, at: p + 1) {
            p[25] = 0x22
            count += 26
        } else {
            count += 1
            writeISO8601Body(t)
            appendByte(0x22)
        }
        needsComma = true
    }

    /// Inserts bytes that already form one complete JSON value (for pass-through of payloads).
    public mutating func rawValue<C: Collection>(_ json: C) where C.Element == UInt8 {
        separate()
        if json.withContiguousStorageIfAvailable({ appendBytes($0) }) == nil {
            let n = json.count
            let p = reserve(n)
            var i = 0
            for b in json.prefix(n) { p[i] = b; i += 1 }
            count += i
        }
        needsComma = true
    }

    // MARK: convenience for optional fields

    // Inlined (like `key`) so the key is a literal where it is written. Each writes its key
    // and value with a single reservation.

    @inlinable @inline(__always)
    public mutating func field(_ k: StaticString, _ v: Double?, fractionDigits: Int) {
        guard let v, v.isFinite else { return }
        finishDouble(v, fractionDigits: fractionDigits, at: key(k, reservingAfter: JSONWriter.maxFixedLength))
    }

    @inlinable @inline(__always)
    public mutating func field(_ k: StaticString, _ v: Int?) {
        guard let v else { return }
        finishInt(Int64(v), at: key(k, reservingAfter: 20))
    }

    @inlinable @inline(__always)
    public mutating func field(_ k: StaticString, _ v: String?) {
        guard let v else { return }
        finishString(v, at: key(k, reservingAfter: v.utf8.count + 2))
    }

    /// `key(k); uint64(v)` (LocusCore's envelope header).
    @inline(__always) mutating func field(_ k: StaticString, _ v: UInt64) {
        count += JSONWriter.writeUnsigned(v, at: key(k, reservingAfter: 20))
        needsComma = true
    }

    /// `key(k); time(t)` (LocusCore's envelope header).
    @inline(__always) mutating func field(_ k: StaticString, _ t: EventTime) {
        key(k)
        time(t)
    }

    @inlinable @inline(__always)
    public mutating func field(_ k: StaticString, _ v: Bool?) {
        guard let v else { return }
        key(k); bool(v)
    }

    // MARK: primitives

    /// True if `s` can be copied between quotes as it is (checked in debug builds).
    @inlinable
    static func needsNoEscaping(_ s: StaticString) -> Bool {
        guard s.hasPointerRepresentation else { return false }
        let p = s.utf8Start
        for i in 0..<s.utf8CodeUnitCount {
            let c = p[i]
            if c < 0x20 || c == 0x22 || c == 0x5C { return false }
        }
        return true
    }

    @usableFromInline mutating func appendASCII(_ s: StaticString) {
        let n = s.utf8CodeUnitCount
        UnsafeMutableRawPointer(reserve(n)).copyMemory(from: s.utf8Start, byteCount: n)
        count += n
    }

    /// "00", "01", … "99" back to back: integers are written two digits per division.
    static var digitPairs: UnsafePointer<UInt8> {
        ("00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899" as StaticString).utf8Start
    }

    /// Number of decimal digits of `v` (1 for 0).
    @inline(__always) static func digitCount(_ v: UInt64) -> Int {
        var n = 1
        var t = v
        while t >= 10_000 { t /= 10_000; n += 4 }
        if t >= 100 { return t >= 1000 ? n + 3 : n + 2 }
        return t >= 10 ? n + 1 : n
    }

    /// Writes the last `n` decimal digits of `v` to `p[0..<n]`, with leading zeros if `v` is shorter.
    @inline(__always) static func writeDigits(_ v: UInt64, count n: Int, at p: UnsafeMutablePointer<UInt8>) {
        let pairs = digitPairs
        var x = v
        var i = n
        while i >= 2 {
            let r = Int(truncatingIfNeeded: x % 100)
            x /= 100
            i -= 2
            p[i] = pairs[2 &* r]
            p[i + 1] = pairs[2 &* r + 1]
        }
        if i == 1 { p[0] = UInt8(truncatingIfNeeded: x % 10) + 0x30 }
    }

    /// Writes `v` in decimal (at most 20 bytes); returns the number of bytes written.
    @inline(__always) static func writeUnsigned(_ v: UInt64, at p: UnsafeMutablePointer<UInt8>) -> Int {
        if v < 10 { p[0] = UInt8(truncatingIfNeeded: v) + 0x30; return 1 }
        let n = digitCount(v)
        writeDigits(v, count: n, at: p)
        return n
    }

    /// Writes `v` in decimal (at most 20 bytes); returns the number of bytes written.
    @inline(__always) static func writeInteger(_ v: Int64, at p: UnsafeMutablePointer<UInt8>) -> Int {
        guard v < 0 else { return writeUnsigned(UInt64(v), at: p) }
        p[0] = 0x2D
        // The magnitude of Int64.min does not fit in Int64, but does in UInt64.
        return 1 + writeUnsigned(v.magnitude, at: p + 1)
    }

    /// Longest fixed-point number `writeFixed` writes: sign, 16 whole digits (below 9e15),
    /// point, 9 fraction digits.
    @usableFromInline static let maxFixedLength = 27

    /// 10^digits for 0...9.
    @inline(__always) static func powerOfTen(_ digits: Int) -> UInt64 {
        switch digits {
        case 0: return 1
        case 1: return 10
        case 2: return 100
        case 3: return 1000
        case 4: return 10_000
        case 5: return 100_000
        case 6: return 1_000_000
        case 7: return 10_000_000
        case 8: return 100_000_000
        default: return 1_000_000_000
        }
    }

    /// `v` split at `digits` (0...9) decimal places: `(v / 10^digits, v % 10^digits)`.
    /// A case per divisor, because dividing by a constant compiles to a multiplication, while
    /// a division by a variable is one of the slowest instructions there is.
    @inline(__always) static func splitDecimal(_ v: UInt64, _ digits: Int) -> (UInt64, UInt64) {
        switch digits {
        case 0: return (v, 0)
        case 1: return v.quotientAndRemainder(dividingBy: 10)
        case 2: return v.quotientAndRemainder(dividingBy: 100)
        case 3: return v.quotientAndRemainder(dividingBy: 1000)
        case 4: return v.quotientAndRemainder(dividingBy: 10_000)
        case 5: return v.quotientAndRemainder(dividingBy: 100_000)
        case 6: return v.quotientAndRemainder(dividingBy: 1_000_000)
        case 7: return v.quotientAndRemainder(dividingBy: 10_000_000)
        case 8: return v.quotientAndRemainder(dividingBy: 100_000_000)
        default: return v.quotientAndRemainder(dividingBy: 1_000_000_000)
        }
    }

    /// Writes finite `v` rounded to `fractionDigits` decimals (clamped to 0...9), trailing zeros
    /// trimmed, at `p` (room for `maxFixedLength` bytes). Returns the number of bytes, or nil
    /// when `v` is too large for exact fixed point.
    @usableFromInline static func writeFixed(_ v: Double, fractionDigits: Int, at p: UnsafeMutablePointer<UInt8>) -> Int? {
        let digits = min(max(fractionDigits, 0), 9)
        let scaled = abs(v) * Double(Int64(powerOfTen(digits)))
        // Beyond this, doubles are no longer exact integers.
        guard scaled < 9.0e15 else { return nil }
        // Round half away from zero (what `scaled.rounded()` does, without calling libm's
        // `round`): below 2^53 the integer part converts exactly and `scaled - integer part`
        // is exact too. (Through Int64: x86-64 converts signed integers in one instruction,
        // unsigned ones in several.)
        let truncated = Int64(scaled)
        var units = UInt64(truncated)
        if scaled - Double(truncated) >= 0.5 { units += 1 }
        var i = 0
        if v < 0 && units != 0 { p[0] = 0x2D; i = 1 }
        let (whole, fraction) = splitDecimal(units, digits)
        i += writeUnsigned(whole, at: p + i)
        if fraction != 0 {
            // All `digits` fraction digits with leading zeros, then drop the trailing zeros
            // (there is a non-zero digit, so this stops after the point).
            p[i] = 0x2E
            i += 1
            writeDigits(fraction, count: digits, at: p + i)
            i += digits
            while p[i - 1] == 0x30 { i -= 1 }
        }
        return i
    }

    mutating func appendString(_ s: String) {
        var s = s
        s.withUTF8 { appendBytes($0) }
    }

    mutating func appendQuoted(_ s: String) {
        // Native strings (all strings on Linux, including small ones) have contiguous UTF-8.
        if s.utf8.withContiguousStorageIfAvailable({ appendQuoted(utf8: $0) }) != nil { return }
        var s = s
        s.withUTF8 { appendQuoted(utf8: $0) }
    }

    /// Writes `u` as a quoted JSON string. Text that needs no escape (nearly all) is copied at once.
    mutating func appendQuoted(utf8 u: UnsafeBufferPointer<UInt8>) {
        let n = u.count
        if n == 0 || jsonPlainPrefixLength(u.baseAddress!, n) == n {
            let p = reserve(n + 2)
            p[0] = 0x22
            if n > 0 { UnsafeMutableRawPointer(p + 1).copyMemory(from: u.baseAddress!, byteCount: n) }
            p[n + 1] = 0x22
            count += n + 2
            return
        }
        // Every byte takes at most six (`\u00XX`).
        let p = reserve(6 * n + 2)
        let hex = JSONWriter.hexDigits
        var i = 0
        p[i] = 0x22; i += 1
        for c in u {
            switch c {
            case 0x22: p[i] = 0x5C; p[i + 1] = 0x22; i += 2
            case 0x5C: p[i] = 0x5C; p[i + 1] = 0x5C; i += 2
            case 0x0A: p[i] = 0x5C; p[i + 1] = 0x6E; i += 2
            case 0x0D: p[i] = 0x5C; p[i + 1] = 0x72; i += 2
            case 0x09: p[i] = 0x5C; p[i + 1] = 0x74; i += 2
            case 0..<0x20:
                p[i] = 0x5C; p[i + 1] = 0x75; p[i + 2] = 0x30; p[i + 3] = 0x30
                p[i + 4] = hex[Int(c >> 4)]; p[i + 5] = hex[Int(c & 15)]
                i += 6
            default: p[i] = c; i += 1
            }
        }
        p[i] = 0x22; i += 1
        count += i
    }

    static var hexDigits: UnsafePointer<UInt8> { ("0123456789abcdef" as StaticString).utf8Start }

    /// The calendar fields of `t`: year, month, day, second of the day, millisecond.
    @inline(__always) static func civilFields(_ t: EventTime) -> (year: Int, month: Int, day: Int, second: Int, millisecond: Int) {
        var ms = t.milliseconds
        var days = Int(ms / 86_400_000)
        ms %= 86_400_000
        if ms < 0 { ms += 86_400_000; days -= 1 }
        let (y, mo, d) = CivilCalendar.civilFromDays(days)
        return (y, mo, d, Int(ms / 1000), Int(ms % 1000))
    }

    /// Writes `-MM-DDTHH:MM:SS.mmmZ` (20 bytes), what follows the year.
    @inline(__always) static func writeISO8601Tail(_ f: (year: Int, month: Int, day: Int, second: Int, millisecond: Int),
                                                   at p: UnsafeMutablePointer<UInt8>) {
        p[0] = 0x2D; writeDigits(UInt64(f.month), count: 2, at: p + 1)
        p[3] = 0x2D; writeDigits(UInt64(f.day), count: 2, at: p + 4)
        p[6] = 0x54; writeDigits(UInt64(f.second / 3600), count: 2, at: p + 7)
        p[9] = 0x3A; writeDigits(UInt64(f.second / 60 % 60), count: 2, at: p + 10)
        p[12] = 0x3A; writeDigits(UInt64(f.second % 60), count: 2, at: p + 13)
        p[15] = 0x2E; writeDigits(UInt64(f.millisecond), count: 3, at: p + 16)
        p[19] = 0x5A
    }

    /// Writes `YYYY-MM-DDTHH:MM:SS.mmmZ` (24 bytes) at `p`; false (nothing written) if the year
    /// is outside 0...9999.
    static func writeISO8601(_ t: EventTime, at p: UnsafeMutablePointer<UInt8>) -> Bool {
        let f = civilFields(t)
        guard f.year >= 0 && f.year <= 9999 else { return false }
        writeDigits(UInt64(f.year), count: 4, at: p)
        writeISO8601Tail(f, at: p + 4)
        return true
    }

    /// Writes `YYYY-MM-DDTHH:MM:SS.mmmZ` (without quotes); a year outside 0...9999 as Swift
    /// prints it (`-1`, `10000`).
    mutating func writeISO8601Body(_ t: EventTime) {
        if JSONWriter.writeISO8601(t, at: reserve(24)) { count += 24; return }
        let f = JSONWriter.civilFields(t)
        appendString(String(f.year))
        JSONWriter.writeISO8601Tail(f, at: reserve(20))
        count += 20
    }
}

/// The writer's buffer: one heap block holding the bytes (`capacity` is what malloc gave).
/// Only a writer that holds the sole reference writes to it (see `JSONWriter.reserve`),
/// which is why writers holding it may cross threads.
@usableFromInline final class JSONWriterStorage: ManagedBuffer<Void, UInt8> {
    @usableFromInline static func make(capacity: Int) -> JSONWriterStorage {
        unsafeDowncast(create(minimumCapacity: max(capacity, 16)) { _ in }, to: JSONWriterStorage.self)
    }

    /// The first byte. Tail-allocated elements never move while the object lives.
    @inlinable var elements: UnsafeMutablePointer<UInt8> {
        @inline(__always) get { withUnsafeMutablePointerToElements { $0 } }
    }
}

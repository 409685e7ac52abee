/// A point in event time: UTC milliseconds since 1970-01-01T00:00:00Z.
///
/// Services run on this clock only — the time carried by observations and clock ticks —
/// never on the wall clock, so a replay at any speed produces the same events.
/// Millisecond resolution is what the wire carries (ISO 8601 with three fraction digits).
public struct EventTime: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var milliseconds: Int64

    public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    /// From a JSON number of milliseconds (a stored state); nil when it is not a whole number
    /// an `Int64` holds, rather than a trap on a damaged file.
    public init?(jsonMilliseconds value: Double) {
        guard let ms = Int64(exactly: value.rounded(.towardZero)) else { return nil }
        milliseconds = ms
    }

    /// `seconds` must be finite and within Int64 milliseconds (it traps otherwise): for numbers
    /// read from outside, use `init?(checkedSeconds:)`.
    public init(seconds: Double) { self.milliseconds = Int64((seconds * 1000).rounded()) }

    /// Seconds since the epoch from outside input: nil unless finite and within years 0–9999
    /// (a time such as 1e300 from a file or a socket must be an error, not a trap).
    public init?(checkedSeconds seconds: Double) {
        guard seconds.isFinite, seconds >= -62_167_219_200, seconds <= 253_402_300_799 else { return nil }
        self.init(seconds: seconds)
    }

    public var seconds: Double { Double(milliseconds) / 1000 }

    public static func < (a: EventTime, b: EventTime) -> Bool { a.milliseconds < b.milliseconds }

    /// Time elapsed from `earlier` to `self`, in seconds.
    public func seconds(since earlier: EventTime) -> Double { Double(milliseconds - earlier.milliseconds) / 1000 }

    public func adding(seconds: Double) -> EventTime {
        EventTime(milliseconds: milliseconds + Int64((seconds * 1000).rounded()))
    }

    public var description: String { iso8601 }
}

extension EventTime {
    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`, the wire form.
    public var iso8601: String {
        var w = JSONWriter(capacity: 32)
        w.writeISO8601Body(self)
        return w.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// Parses ISO 8601 / RFC 3339 date-times: `2024-05-17T08:00:00Z`, with an optional fraction
    /// (any number of digits, truncated to milliseconds) and `Z` or a `±HH:MM` offset.
    public init?(iso8601 text: String) {
        var utf8 = Array(text.utf8)
        guard let t = utf8.withUnsafeMutableBufferPointer({ EventTime.parseISO8601(UnsafeBufferPointer($0)) }) else { return nil }
        self = t
    }

    /// The exact form Locus writes, `YYYY-MM-DDTHH:MM:SS.mmmZ` (24 bytes at `p`), without the
    /// general parser's branches: every envelope carries one. Returns nil for anything else
    /// (the caller then uses `parseISO8601`); where it returns a time, it is the one
    /// `parseISO8601` would.
    static func parseCanonicalISO8601(_ p: UnsafePointer<UInt8>) -> EventTime? {
        guard p[4] == 0x2D, p[7] == 0x2D, p[10] == 0x54, p[13] == 0x3A, p[16] == 0x3A, p[19] == 0x2E, p[23] == 0x5A else {
            return nil
        }
        var bad = false
        @inline(__always) func digits(_ at: Int, _ n: Int) -> Int {
            var v = 0
            for k in at..<(at + n) {
                let d = p[k] &- 0x30
                if d > 9 { bad = true }
                v = v &* 10 &+ Int(d)
            }
            return v
        }
        let year = digits(0, 4), month = digits(5, 2), day = digits(8, 2)
        let hour = digits(11, 2), minute = digits(14, 2), second = digits(17, 2), millis = digits(20, 3)
        guard !bad, (1...12).contains(month), day >= 1, day <= CivilCalendar.daysInMonth(year: year, month: month),
              hour < 24, minute < 60, second <= 60 else { return nil }
        let days = CivilCalendar.daysFromCivil(year: year, month: month, day: day)
        let secs = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        return EventTime(milliseconds: secs * 1000 + Int64(millis))
    }

    static func parseISO8601(_ b: UnsafeBufferPointer<UInt8>) -> EventTime? {
        if b.count == 24, let t = parseCanonicalISO8601(b.baseAddress!) { return t }
        var i = 0
        func digits(_ n: Int) -> Int? {
            guard i + n <= b.count else { return nil }
            var v = 0
            for k in 0..<n {
                let c = b[i + k]
                guard c >= 0x30, c <= 0x39 else { return nil }
                v = v * 10 + Int(c - 0x30)
            }
            i += n
            return v
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), expect(0x2D), let month = digits(2), expect(0x2D), let day = digits(2) else { return nil }
        guard i < b.count, b[i] == 0x54 || b[i] == 0x74 || b[i] == 0x20 else { return nil }
        i += 1
        guard let hour = digits(2), expect(0x3A), let minute = digits(2), expect(0x3A), let second = digits(2) else { return nil }
        guard (1...12).contains(month), day >= 1, day <= CivilCalendar.daysInMonth(year: year, month: month),
              hour < 24, minute < 60, second <= 60 else { return nil }
        var millis = 0
        if i < b.count, b[i] == 0x2E {
            i += 1
            var n = 0
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
                if n < 3 { millis = millis * 10 + Int(b[i] - 0x30) }
                n += 1
                i += 1
            }
            guard n > 0 else { return nil }
            for _ in n..<max(n, 3) { millis *= 10 }
        }
        var offsetMinutes = 0
        guard i < b.count else { return nil }
        if b[i] == 0x5A || b[i] == 0x7A {
            i += 1
        } else if b[i] == 0x2B || b[i] == 0x2D {
            let sign = b[i] == 0x2D ? -1 : 1
            i += 1
            guard let oh = digits(2), expect(0x3A), let om = digits(2) else { return nil }
            offsetMinutes = sign * (oh * 60 + om)
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let days = CivilCalendar.daysFromCivil(year: year, month: month, day: day)
        let secs = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetMinutes * 60)
        return EventTime(milliseconds: secs * 1000 + Int64(millis))
    }
}

/// Proleptic Gregorian calendar arithmetic (Howard Hinnant's algorithms), so formatting a
/// timestamp needs neither Foundation nor the time zone database.
enum CivilCalendar {
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civilFromDays(_ z0: Int) -> (year: Int, month: Int, day: Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

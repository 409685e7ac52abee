/// Number parsing on field bytes, without Foundation or allocation.
///
/// A decimal is read as an integer mantissa and a power-of-ten scale, so `4807.038` becomes
/// 4807038 / 10³: one correctly rounded division, the same double `strtod` gives.
enum NMEANumber {
    /// 10^k for k in 0...18, exactly (a switch, which compiles to a constant table: a global
    /// array would cost a lazy-initialisation check and a bounds check on every number).
    @inline(__always) static func powerOfTen(_ k: Int) -> Double {
        switch k {
        case 0: return 1
        case 1: return 10
        case 2: return 100
        case 3: return 1e3
        case 4: return 1e4
        case 5: return 1e5
        case 6: return 1e6
        case 7: return 1e7
        case 8: return 1e8
        case 9: return 1e9
        case 10: return 1e10
        case 11: return 1e11
        case 12: return 1e12
        case 13: return 1e13
        case 14: return 1e14
        case 15: return 1e15
        case 16: return 1e16
        case 17: return 1e17
        default: return 1e18
        }
    }

    struct Decimal {
        var mantissa: Int64
        var scale: Int
        var negative: Bool
        var value: Double {
            let v = Double(mantissa) / NMEANumber.powerOfTen(scale)
            return negative ? -v : v
        }
    }

    /// Most fraction digits kept: 1e-15 is far below any NMEA resolution, and it keeps
    /// `10^scale * 100` (coordinates) inside Int64.
    static let maxScale = 15

    /// `[+-]digits[.digits]`; at least one digit; nil for anything else. Fraction digits past
    /// `maxScale`, or past the 18th significant digit, are ignored.
    static func decimal(_ f: UnsafeBufferPointer<UInt8>) -> Decimal? {
        var i = 0, n = f.count
        guard n > 0 else { return nil } // empty fields are common
        if n <= 16, f[0] != 0x20, f[n - 1] != 0x20 { return shortDecimal(f) }
        // Some receivers pad fields with spaces.
        while n > 0, f[n - 1] == 0x20 { n -= 1 }
        while i < n, f[i] == 0x20 { i += 1 }
        guard i < n else { return nil }
        var negative = false
        if f[i] == 0x2D { negative = true; i += 1 } else if f[i] == 0x2B { i += 1 }
        var mantissa: Int64 = 0, scale = 0, digits = 0, sawPoint = false, significant = 0
        while i < n {
            let c = f[i]
            if c == 0x2E {
                guard !sawPoint else { return nil }
                sawPoint = true
            } else if c >= 0x30, c <= 0x39 {
                digits += 1
                if sawPoint && scale >= maxScale {
                    // ignored: beyond any receiver's resolution
                } else if significant < 18 {
                    mantissa = mantissa * 10 + Int64(c - 0x30)
                    if mantissa != 0 { significant += 1 }
                    if sawPoint { scale += 1 }
                } else if !sawPoint {
                    return nil // an integer part this long is not an NMEA number
                }
            } else {
                return nil
            }
            i += 1
        }
        guard digits > 0 else { return nil }
        return Decimal(mantissa: mantissa, scale: scale, negative: negative)
    }

    /// `decimal` for at most 16 bytes without padding (nearly every field): at most 15
    /// fraction digits and 16 digits in all, so no digit is dropped and the mantissa cannot
    /// overflow — the general loop's bookkeeping is not needed.
    @inline(__always) static func shortDecimal(_ f: UnsafeBufferPointer<UInt8>) -> Decimal? {
        let n = f.count
        var i = 0
        var negative = false
        if f[0] == 0x2D { negative = true; i = 1 } else if f[0] == 0x2B { i = 1 }
        var mantissa: Int64 = 0
        let integerStart = i
        while i < n {
            let d = f[i] &- 0x30
            guard d < 10 else { break }
            mantissa = mantissa &* 10 &+ Int64(d)
            i += 1
        }
        var digits = i - integerStart, scale = 0
        if i < n {
            guard f[i] == 0x2E else { return nil }
            i += 1
            let fractionStart = i
            while i < n {
                let d = f[i] &- 0x30
                guard d < 10 else { return nil }
                mantissa = mantissa &* 10 &+ Int64(d)
                i += 1
            }
            scale = i - fractionStart
            digits += scale
        }
        guard digits > 0 else { return nil }
        return Decimal(mantissa: mantissa, scale: scale, negative: negative)
    }

    static func double(_ f: UnsafeBufferPointer<UInt8>) -> Double? { decimal(f)?.value }

    /// An integer field; a decimal with a zero fraction (`08.0`) is accepted.
    static func int(_ f: UnsafeBufferPointer<UInt8>) -> Int? {
        // Plain digits (PRNs, counts, angles): no scale to undo.
        if f.count > 0, f.count <= 9 {
            var v = 0
            for c in f {
                let d = c &- 0x30
                guard d < 10 else { return decimalInt(f) }
                v = v &* 10 &+ Int(d)
            }
            return v
        }
        return decimalInt(f)
    }

    private static func decimalInt(_ f: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let d = decimal(f) else { return nil }
        let p = Int64(powerOfTen(d.scale))
        guard d.mantissa % p == 0 else { return nil }
        let v = Int(d.mantissa / p)
        return d.negative ? -v : v
    }

    /// `ddmm.mmmm` (latitude, `degreeDigits` 2) or `dddmm.mmmm` (longitude) with a hemisphere
    /// letter in the next field, to signed degrees. nil when either is missing or out of range.
    static func coordinate(_ f: UnsafeBufferPointer<UInt8>, hemisphere h: UInt8?, isLatitude: Bool) -> Double? {
        guard let d = decimal(f), !d.negative, let h else { return nil }
        let unit = Int64(powerOfTen(d.scale)) * 100
        let degrees = d.mantissa / unit
        let minutes = Double(d.mantissa - degrees * unit) / powerOfTen(d.scale)
        guard minutes < 60 else { return nil }
        let v = Double(degrees) + minutes / 60
        let sign: Double
        switch h {
        case UInt8(ascii: "N") where isLatitude, UInt8(ascii: "E") where !isLatitude: sign = 1
        case UInt8(ascii: "S") where isLatitude, UInt8(ascii: "W") where !isLatitude: sign = -1
        default: return nil
        }
        guard v <= (isLatitude ? 90 : 180) else { return nil }
        return sign * v
    }

    /// `hhmmss[.sss]` to milliseconds since midnight UTC (rounded to the millisecond).
    static func timeOfDay(_ f: UnsafeBufferPointer<UInt8>) -> Int? {
        guard f.count >= 6, let d = decimal(f), !d.negative else { return nil }
        for k in 0..<6 where f[k] < 0x30 || f[k] > 0x39 { return nil }
        let p = Int64(powerOfTen(d.scale))
        let whole = d.mantissa / p
        let hh = Int(whole / 10_000), mm = Int(whole / 100 % 100), ss = Int(whole % 100)
        // Second 60 is a leap second.
        guard hh < 24, mm < 60, ss <= 60 else { return nil }
        let fraction = Double(d.mantissa % p) / Double(p)
        return (hh * 3600 + mm * 60 + ss) * 1000 + Int((fraction * 1000).rounded())
    }

    /// RMC `ddmmyy` to days since 1970-01-01. Two-digit years 80–99 are 1980–1999 (GPS
    /// began in 1980), 00–79 are 2000–2079.
    static func rmcDate(_ f: UnsafeBufferPointer<UInt8>) -> Int? {
        guard f.count == 6, let v = int(f) else { return nil }
        let day = v / 10_000, month = v / 100 % 100, yy = v % 100, year = yy >= 80 ? 1900 + yy : 2000 + yy
        return NMEACalendar.days(year: year, month: month, day: day)
    }
}

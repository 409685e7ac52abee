/// Eight-bytes-at-a-time (SWAR) byte tests for the hub's scanner: find the first byte of a
/// kind with a few word operations and a trailing-zero count instead of a branch per byte.
enum ByteMasks {
    /// Eight bytes from `k` (the buffer must hold them), the first byte lowest.
    @inline(__always) static func word(_ p: UnsafePointer<UInt8>, _ k: Int) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(p + k).loadUnaligned(as: UInt64.self))
    }

    /// SWAR: the high bit of each byte of the result is set where `x` has `"`, `\\` or a byte
    /// below 0x20. Only the lowest set bit is exact (borrows can mark later bytes), which is all
    /// a scan for the first such byte needs.
    @inline(__always) static func stringSpecials(_ x: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        let quote = x ^ (ones &* 0x22)
        let backslash = x ^ (ones &* 0x5C)
        let zeroQuote = (quote &- ones) & ~quote
        let zeroBackslash = (backslash &- ones) & ~backslash
        let control = (x &- ones &* 0x20) & ~x
        return (zeroQuote | zeroBackslash | control) & high
    }

    /// SWAR: high bit set in each byte of `x` that is not an ASCII digit (lowest one exact).
    @inline(__always) static func nonDigits(_ x: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let y = x ^ (ones &* 0x30) // digits become 0...9
        return ((y &+ ones &* (127 - 9)) | y) & (ones &* 0x80)
    }
}

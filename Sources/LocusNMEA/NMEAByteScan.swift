/// Eight-bytes-at-a-time tests for the framer ("SIMD within a register"): each returns a word
/// with bit 7 set in exactly the bytes of `w` that match, and zero elsewhere. Bytes are in
/// memory order from the low end (load with `UInt64(littleEndian:)`), so the first match is
/// at `trailingZeroBitCount / 8`.
///
/// No carry crosses a byte: every sum is of a byte's low seven bits and a constant that keeps
/// it below 0x100.
enum NMEAByteScan {
    static let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
    static let high: UInt64 = 0x8080_8080_8080_8080
    static let ones: UInt64 = 0x0101_0101_0101_0101

    /// Bytes equal to zero.
    @inline(__always) static func zeroBytes(_ w: UInt64) -> UInt64 {
        ~(((w & low7) &+ low7) | w | low7)
    }

    /// Bytes equal to `c`.
    @inline(__always) static func bytes(_ w: UInt64, equalTo c: UInt8) -> UInt64 {
        zeroBytes(w ^ (ones &* UInt64(c)))
    }

    /// Bytes below 0x20 (control characters).
    @inline(__always) static func controlBytes(_ w: UInt64) -> UInt64 {
        ~(((w & low7) &+ (ones &* 0x60)) | w) & high
    }

    /// Bytes from 0x7F up (DEL and non-ASCII).
    @inline(__always) static func nonPrintableHighBytes(_ w: UInt64) -> UInt64 {
        (((w & low7) &+ ones) | w) & high
    }

    /// Bytes below 0x25: line ends, `$`, `!` and the few rare printable ones before them
    /// (space, `"`, `#`). A word without any cannot end or restart a sentence.
    @inline(__always) static func bytesBelowDollarPlusOne(_ w: UInt64) -> UInt64 {
        ~(((w & low7) &+ (ones &* (0x80 - 0x25))) | w) & high
    }

    /// Loads eight bytes at `p`, which need not be aligned.
    @inline(__always) static func load(_ p: UnsafeRawPointer) -> UInt64 {
        UInt64(littleEndian: p.loadUnaligned(as: UInt64.self))
    }
}

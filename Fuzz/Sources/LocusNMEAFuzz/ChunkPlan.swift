/// How to cut an input into pieces for `NMEADecoder.feed`, derived from the input itself so a
/// saved crash input replays the same cuts: a SplitMix64 stream seeded with the input's
/// FNV-1a hash. Pieces are mostly short (1–4 bytes: cuts inside `*hh` and CRLF), some longer,
/// and some empty (a zero-byte feed must be harmless).
struct ChunkPlan {
    /// Consecutive ranges covering `0..<input.count`, some of them empty.
    private(set) var ranges: [Range<Int>] = []
    /// Index into `ranges` after which the decoder is copied (`DecodeRun` feeds both copies).
    private(set) var copyAfter = 0

    init(_ input: UnsafeRawBufferPointer) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in input { hash = (hash ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
        var rng = SplitMix64(seed: hash)
        var start = 0
        while start < input.count {
            let r = rng.next()
            let length: Int
            switch r % 8 {
            case 0: length = 0
            case 1, 2, 3: length = 1 + Int((r >> 8) % 4)
            case 4, 5, 6: length = 1 + Int((r >> 8) % 64)
            default: length = 1 + Int((r >> 8) % 512)
            }
            let end = min(input.count, start + length)
            ranges.append(start..<end)
            start = end
        }
        copyAfter = ranges.isEmpty ? 0 : Int(rng.next() % UInt64(ranges.count))
    }
}

/// Steele, Lea and Flood's SplitMix64: a tiny, fully deterministic generator.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}

/// Where to cut an input into the pieces a socket would deliver, decided by the input's own
/// hash (FNV-1a, then xorshift), so a run is reproducible from the input alone: mostly 1–64
/// bytes, one piece in eight up to 1,024. Shared by the web gateway's fuzz targets (`webhead`,
/// `webframe`), which feed a connection's bytes to channel handlers.
public struct ChunkPlan {
    private var state: UInt64

    public init(_ bytes: [UInt8]) {
        var h: UInt64 = 0xcbf29ce484222325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100000001b3 }
        state = h | 1
    }

    /// The input in pieces, in order.
    public mutating func pieces(of bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var out: [ArraySlice<UInt8>] = []
        var at = 0
        while at < bytes.count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            let size = state % 8 == 0 ? Int((state >> 8) % 1024) + 1 : Int((state >> 8) % 64) + 1
            let end = min(bytes.count, at + size)
            out.append(bytes[at..<end])
            at = end
        }
        return out
    }
}

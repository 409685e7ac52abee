/// Tile key → chunk number: an open-addressing hash table with linear probing, for
/// `ShapeGridLevel`.
///
/// Why not `Dictionary`: its SipHash costs ~20 ns per query and a lookup is generic code;
/// keys here are non-negative `Int64` cell coordinates, for which one multiplication
/// (Fibonacci hashing) spreads well, and a probe reads one 16-byte slot. Removal shifts later
/// entries back (no tombstones), so churn does not degrade lookups.
///
/// Storage is a raw allocation, so that copying the table (a query copies its level's view)
/// retains nothing; the owner calls `deallocate()` once.
@usableFromInline
struct TileTable {
    @usableFromInline struct Slot {
        /// `TileTable.empty` when free.
        @usableFromInline var key: Int64
        @usableFromInline var chunk: Int32
    }

    @usableFromInline static let empty: Int64 = -1
    @usableFromInline var slots: UnsafeMutablePointer<Slot>
    @usableFromInline var mask: Int
    /// 64 − log2(slot count): the hash is the product's top bits.
    @usableFromInline var shift: UInt64
    private(set) var count = 0

    init() {
        (slots, mask, shift) = Self.allocate(log2Count: 4)
    }

    private static func allocate(log2Count: UInt64) -> (UnsafeMutablePointer<Slot>, Int, UInt64) {
        let n = 1 << log2Count
        let slots = UnsafeMutablePointer<Slot>.allocate(capacity: n)
        slots.initialize(repeating: Slot(key: empty, chunk: 0), count: n)
        return (slots, n - 1, 64 - log2Count)
    }

    func deallocate() { slots.deallocate() }

    @inlinable @inline(__always)
    func home(_ key: Int64) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The chunk of tile `key` (≥ 0), or nil.
    @inlinable @inline(__always)
    func chunk(_ key: Int64) -> Int? {
        var i = home(key)
        while true {
            let slot = slots[i]
            if slot.key == key { return Int(slot.chunk) }
            if slot.key == Self.empty { return nil }
            i = (i + 1) & mask
        }
    }

    /// Adds `key` (not present, ≥ 0) → `chunk`.
    mutating func insert(_ key: Int64, chunk: Int32) {
        if (count + 1) * 2 > mask + 1 { grow() }
        var i = home(key)
        while slots[i].key != Self.empty { i = (i + 1) & mask }
        slots[i] = Slot(key: key, chunk: chunk)
        count += 1
    }

    /// Removes `key` if present.
    mutating func remove(_ key: Int64) {
        var i = home(key)
        while slots[i].key != key {
            if slots[i].key == Self.empty { return }
            i = (i + 1) & mask
        }
        // Backward shift: move later members of the probe run into the hole when their home
        // does not lie cyclically in (hole, their position].
        var j = i
        while true {
            j = (j + 1) & mask
            let k = slots[j].key
            if k == Self.empty { break }
            let h = home(k)
            let stays = i <= j ? (i < h && h <= j) : (i < h || h <= j)
            if stays { continue }
            slots[i] = slots[j]
            i = j
        }
        slots[i].key = Self.empty
        count -= 1
    }

    private mutating func grow() {
        let old = slots, oldCount = mask + 1
        (slots, mask, shift) = Self.allocate(log2Count: 64 - shift + 1)
        count = 0
        for i in 0..<oldCount where old[i].key != Self.empty { insert(old[i].key, chunk: old[i].chunk) }
        old.deallocate()
    }

    var approximateBytes: Int { (mask + 1) * MemoryLayout<Slot>.stride }
}

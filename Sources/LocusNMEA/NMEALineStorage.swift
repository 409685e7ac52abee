/// Fixed-size storage for one line and its comma positions, allocated once per framer so
/// framing a sentence never allocates. A class so sentence views can point into it; the framer
/// copies it before writing when it is shared (a copied framer stays a value).
final class NMEALineStorage {
    let capacity: Int
    let bytes: UnsafeMutablePointer<UInt8>
    /// Start offset of each field (into `bytes`), plus one past the last field's end.
    let fieldStarts: UnsafeMutablePointer<Int32>

    init(capacity: Int) {
        self.capacity = capacity
        // Eight spare bytes: the framer reads a line a word at a time, and its last word may
        // reach past the line's end (those bytes are never used).
        bytes = .allocate(capacity: capacity + 8)
        bytes.initialize(repeating: 0, count: capacity + 8)
        fieldStarts = .allocate(capacity: capacity + 2)
    }

    func copy(count: Int) -> NMEALineStorage {
        let c = NMEALineStorage(capacity: capacity)
        c.bytes.update(from: bytes, count: count)
        return c
    }

    deinit {
        bytes.deallocate()
        fieldStarts.deallocate()
    }
}

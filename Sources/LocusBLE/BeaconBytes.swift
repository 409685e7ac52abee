/// Up to 20 bytes held inline: a beacon identity (6 to 20 bytes) without a heap allocation.
///
/// Decoding a beacon is a few loads and compares; an `[UInt8]` per identity part was most of its
/// cost. Reads like any collection of bytes; equal when the bytes are equal.
public struct BeaconBytes: RandomAccessCollection, Hashable, Sendable, CustomStringConvertible {
    public static let capacity = 20
    // Bytes past `count` stay zero, so the stored words compare and hash as the value.
    private var words: (UInt64, UInt64, UInt32) = (0, 0, 0)
    private let length: UInt8

    /// - Precondition: at most `capacity` bytes.
    public init(_ bytes: some Sequence<UInt8>) {
        var n = 0
        var w: (UInt64, UInt64, UInt32) = (0, 0, 0)
        withUnsafeMutableBytes(of: &w) { raw in
            for b in bytes {
                precondition(n < Self.capacity, "BeaconBytes holds at most \(Self.capacity) bytes")
                raw[n] = b
                n += 1
            }
        }
        words = w
        length = UInt8(n)
    }

    /// `range` of `buffer`, which must lie inside it and be at most `capacity` long.
    @inline(__always) init(_ buffer: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        precondition(range.count <= Self.capacity && range.lowerBound >= 0 && range.upperBound <= buffer.count)
        var w: (UInt64, UInt64, UInt32) = (0, 0, 0)
        withUnsafeMutableBytes(of: &w) { raw in
            raw.baseAddress!.copyMemory(from: buffer.baseAddress! + range.lowerBound, byteCount: range.count)
        }
        words = w
        length = UInt8(range.count)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { Int(length) }

    public subscript(position: Int) -> UInt8 {
        precondition(position >= 0 && position < Int(length), "BeaconBytes index out of range")
        return withUnsafeBytes(of: words) { $0[position] }
    }

    public static func == (a: BeaconBytes, b: BeaconBytes) -> Bool {
        a.length == b.length && a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(length); hasher.combine(words.0); hasher.combine(words.1); hasher.combine(words.2)
    }

    /// Lower-case hex.
    public var description: String { Hex.string(self) }
}

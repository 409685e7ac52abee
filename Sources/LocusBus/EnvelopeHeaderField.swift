import LocusCore

/// The envelope's header keys, recognised without building Strings.
enum EnvelopeHeaderField {
    /// In bit order: bit k of a "seen" mask stands for `names[k]`.
    static let names = ["type", "version", "producer", "seq", "time", "payload", "topic_seq"]
    /// The bits of the fields every envelope must have (all but `topic_seq`).
    static let requiredMask: UInt8 = 0b0011_1111

    /// Which header field a quoted key names: 0 type, 1 version, 2 producer, 3 seq, 4 time,
    /// 5 payload, 6 topic_seq, -1 another key. Compares little-endian words instead of calling memcmp.
    @inline(__always)
    static func classify(_ quoted: UnsafePointer<UInt8>, _ count: Int) -> Int {
        let k = UnsafeRawPointer(quoted + 1)
        @inline(__always) func u32(_ o: Int) -> UInt32 { UInt32(littleEndian: k.loadUnaligned(fromByteOffset: o, as: UInt32.self)) }
        switch count - 2 {
        // A key that is none of these goes on to `default`: with escapes it may still spell one
        // ("s\u0065q" is 8 bytes, as long as "producer").
        case 3 where u32(-1) == 0x7165_7322: return 3                                  // "seq (with the opening quote)
        case 4 where u32(0) == 0x6570_7974: return 0                                   // type
        case 4 where u32(0) == 0x656D_6974: return 4                                   // time
        case 7 where u32(0) == 0x7372_6576 && u32(3) == 0x6E6F_6973: return 1          // vers|sion
        case 7 where u32(0) == 0x6C79_6170 && u32(3) == 0x6461_6F6C: return 5          // payl|load
        case 8 where u32(0) == 0x646F_7270 && u32(4) == 0x7265_6375: return 2          // prod|ucer
        case 9 where u32(0) == 0x6970_6F74 && u32(4) == 0x6573_5F63 && k.load(fromByteOffset: 8, as: UInt8.self) == 0x71: return 6 // topi|c_se|q
        default:
            // A key with escapes can still spell a header name (`"typ\u0065"`), as JSONReader sees it.
            guard count > 2, UnsafeBufferPointer(start: quoted + 1, count: count - 2).contains(0x5C) else { return -1 }
            let name = (try? JSONReader.read(UnsafeBufferPointer(start: quoted, count: count)) { try $0.readString() }) ?? ""
            return names.firstIndex(of: name) ?? -1
        }
    }
}

import LocusCore

/// The envelope's header keys, recognised without building Strings.
enum EnvelopeHeaderField {
    /// In bit order: bit k of a "seen" mask stands for `names[k]`.
    static let names = ["type", "version", "producer", "seq", "time", "payload"]

    /// Which header field a quoted key names: 0 type, 1 version, 2 producer, 3 seq, 4 time,
    /// 5 payload, -1 another key. Compares little-endian words instead of calling memcmp.
    @inline(__always)
    static func classify(_ quoted: UnsafePointer<UInt8>, _ count: Int) -> Int {
        let k = UnsafeRawPointer(quoted + 1)
        @inline(__always) func u32(_ o: Int) -> UInt32 { UInt32(littleEndian: k.loadUnaligned(fromByteOffset: o, as: UInt32.self)) }
        switch count - 2 {
        case 3: return u32(-1) == 0x7165_7322 ? 3 : -1                                // "seq (with the opening quote)
        case 4: return u32(0) == 0x6570_7974 ? 0 : u32(0) == 0x656D_6974 ? 4 : -1     // type, time
        case 7:
            if u32(0) == 0x7372_6576 && u32(3) == 0x6E6F_6973 { return 1 }            // vers|sion
            if u32(0) == 0x6C79_6170 && u32(3) == 0x6461_6F6C { return 5 }            // payl|load
            return -1
        case 8: return u32(0) == 0x646F_7270 && u32(4) == 0x7265_6375 ? 2 : -1       // prod|ucer
        default:
            // A key with escapes can still spell a header name (`"typ\u0065"`), as JSONReader sees it.
            guard count > 2, UnsafeBufferPointer(start: quoted + 1, count: count - 2).contains(0x5C) else { return -1 }
            let name = (try? JSONReader.read(UnsafeBufferPointer(start: quoted, count: count)) { try $0.readString() }) ?? ""
            return names.firstIndex(of: name) ?? -1
        }
    }
}

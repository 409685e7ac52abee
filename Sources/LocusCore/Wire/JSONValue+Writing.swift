/// `JSONValue.encoded()`'s writer: `JSONEncoder`'s output (sorted keys, slashes unescaped),
/// byte for byte, without its cost.
extension JSONValue {
    /// Appends the value; false when it holds a non-finite number.
    func appendJSON(to out: inout [UInt8]) -> Bool {
        switch self {
        case .null: out += [0x6E, 0x75, 0x6C, 0x6C]
        case .bool(let b): out += b ? Array("true".utf8) : Array("false".utf8)
        case .number(let n):
            guard n.isFinite else { return false }
            // `JSONEncoder` writes a Double's description without a trailing ".0".
            var text = n.description
            if text.hasSuffix(".0") { text.removeLast(2) }
            out += text.utf8
        case .string(let s): Self.writeString(s, to: &out)
        case .array(let a):
            out.append(0x5B)
            for (i, v) in a.enumerated() {
                if i > 0 { out.append(0x2C) }
                guard v.appendJSON(to: &out) else { return false }
            }
            out.append(0x5D)
        case .object(let o):
            out.append(0x7B)
            for (i, key) in o.keys.sorted().enumerated() {
                if i > 0 { out.append(0x2C) }
                Self.writeString(key, to: &out)
                out.append(0x3A)
                guard o[key]!.appendJSON(to: &out) else { return false }
            }
            out.append(0x7D)
        }
        return true
    }

    /// A JSON string: `"` and `\` escaped, control characters as `\b \t \n \f \r` or `\u00xx`
    /// (lower-case hex), everything else (slashes, DEL, all of Unicode) as UTF-8.
    static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(0x22)
        for byte in s.utf8 {
            switch byte {
            case 0x22: out += [0x5C, 0x22]
            case 0x5C: out += [0x5C, 0x5C]
            case 0x08: out += [0x5C, 0x62]
            case 0x09: out += [0x5C, 0x74]
            case 0x0A: out += [0x5C, 0x6E]
            case 0x0C: out += [0x5C, 0x66]
            case 0x0D: out += [0x5C, 0x72]
            case 0..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                out += [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: out.append(byte)
            }
        }
        out.append(0x22)
    }
}

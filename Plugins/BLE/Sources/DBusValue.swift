/// One D-Bus value read from a message, as a tree: what the source needs of BlueZ's `a{sv}`
/// property dictionaries without binding each signature to a Swift type up front.
///
/// Arrays of bytes (`ay`) are kept as `bytes`; arrays of dict entries (`a{..}`) as `dict`, in
/// message order; every other array as `array`.
indirect enum DBusValue: Sendable, Equatable {
    case byte(UInt8)
    case bool(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// A file descriptor (`h`); BlueZ's advertisement properties never carry one, so only its index is kept.
    case unixFD(UInt32)
    case bytes([UInt8])
    case array([DBusValue])
    case dict([DictEntry])
    case structure([DBusValue])
    case variant(DBusValue)

    struct DictEntry: Sendable, Equatable {
        var key: DBusValue
        var value: DBusValue
    }

    /// The value inside any number of variant wrappers.
    var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    /// Any integer type (`y n q i u x t`) that fits in `Int`; nil for everything else.
    var integer: Int? {
        switch unwrapped {
        case .byte(let v): Int(v)
        case .int16(let v): Int(v)
        case .uint16(let v): Int(v)
        case .int32(let v): Int(v)
        case .uint32(let v): Int(v)
        case .int64(let v): Int(v)
        case .uint64(let v): v <= UInt64(Int.max) ? Int(v) : nil
        default: nil
        }
    }

    /// `s` and `o` as text.
    var text: String? {
        switch unwrapped {
        case .string(let s), .objectPath(let s): s
        default: nil
        }
    }

    var boolean: Bool? {
        if case .bool(let b) = unwrapped { return b }
        return nil
    }

    /// `ay`, or an array of `y` variants (some services wrap each byte).
    var byteArray: [UInt8]? {
        switch unwrapped {
        case .bytes(let b): return b
        case .array(let items):
            var out: [UInt8] = []
            out.reserveCapacity(items.count)
            for i in items {
                guard case .byte(let b) = i.unwrapped else { return nil }
                out.append(b)
            }
            return out
        default: return nil
        }
    }

    /// `as` (or `ao`).
    var stringArray: [String]? {
        guard case .array(let items) = unwrapped else { return nil }
        var out: [String] = []
        for i in items {
            guard let s = i.text else { return nil }
            out.append(s)
        }
        return out
    }

    /// `a{s…}` as a Swift dictionary (the last entry wins for a repeated key); nil for other types.
    var stringKeyedDictionary: [String: DBusValue]? {
        switch unwrapped {
        case .dict(let entries):
            var out: [String: DBusValue] = [:]
            for e in entries {
                guard let k = e.key.text else { return nil }
                out[k] = e.value
            }
            return out
        case .array(let items) where items.isEmpty:
            return [:]
        default:
            return nil
        }
    }
}

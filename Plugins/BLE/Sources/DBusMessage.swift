import CSDBus
#if canImport(Glibc)
import Glibc
#endif

/// A D-Bus failure: a negative errno from sd-bus, or an error reply (`name` such as
/// `org.freedesktop.DBus.Error.ServiceUnknown`, `org.bluez.Error.NotReady`).
struct DBusError: Error, Sendable, CustomStringConvertible {
    /// The D-Bus error name, when the peer or the bus sent one.
    var name: String?
    var message: String
    /// errno, positive, when sd-bus failed locally.
    var code: Int32

    init(name: String?, message: String, code: Int32 = 0) {
        self.name = name
        self.message = message
        self.code = code
    }

    /// From a negative sd-bus return value.
    init(_ what: String, returned rc: Int32) {
        self.init(name: nil, message: "\(what): \(String(cString: strerror(-rc)))", code: -rc)
    }

    var description: String { name.map { "\($0): \(message)" } ?? message }
}

/// A received or built `sd_bus_message`, released when this object goes.
/// Like the connection, it belongs to the thread that owns the bus.
final class DBusMessage {
    let pointer: OpaquePointer

    /// Takes over a reference the caller owns.
    init(owning pointer: OpaquePointer) { self.pointer = pointer }

    deinit { sd_bus_message_unref(pointer) }

    var type: UInt8 {
        var t: UInt8 = 0
        _ = sd_bus_message_get_type(pointer, &t)
        return t
    }

    var isSignal: Bool { type == 4 } // SD_BUS_MESSAGE_SIGNAL
    var path: String? { sd_bus_message_get_path(pointer).map { String(cString: $0) } }
    var interface: String? { sd_bus_message_get_interface(pointer).map { String(cString: $0) } }
    var member: String? { sd_bus_message_get_member(pointer).map { String(cString: $0) } }
    var sender: String? { sd_bus_message_get_sender(pointer).map { String(cString: $0) } }

    /// Reads every remaining argument at the current level.
    func readAll() throws -> [DBusValue] {
        var out: [DBusValue] = []
        while let v = try readValue() { out.append(v) }
        return out
    }

    /// Reads the next value; nil at the end of the message or of the container entered.
    func readValue() throws -> DBusValue? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        let rc = sd_bus_message_peek_type(pointer, &type, &contents)
        if rc < 0 { throw DBusError("peek_type", returned: rc) }
        if rc == 0 { return nil }
        let t = UInt8(bitPattern: type)
        switch t {
        case UInt8(ascii: "a"):
            let inner = contents.map { String(cString: $0) } ?? ""
            if inner == "y" { return .bytes(try readByteArray()) }
            try enter(t, inner)
            var items: [DBusValue] = []
            if inner.hasPrefix("{") {
                var entries: [DBusValue.DictEntry] = []
                while true {
                    var et: CChar = 0
                    var ec: UnsafePointer<CChar>?
                    let prc = sd_bus_message_peek_type(pointer, &et, &ec)
                    if prc < 0 { throw DBusError("peek_type", returned: prc) }
                    if prc == 0 { break }
                    try enter(UInt8(ascii: "e"), ec.map { String(cString: $0) } ?? "")
                    guard let k = try readValue(), let v = try readValue() else {
                        throw DBusError(name: nil, message: "dict entry without key and value", code: EBADMSG)
                    }
                    try exit()
                    entries.append(.init(key: k, value: v))
                }
                try exit()
                return .dict(entries)
            }
            while let v = try readValue() { items.append(v) }
            try exit()
            return .array(items)
        case UInt8(ascii: "v"):
            try enter(t, contents.map { String(cString: $0) } ?? "")
            guard let v = try readValue() else { throw DBusError(name: nil, message: "empty variant", code: EBADMSG) }
            try exit()
            return .variant(v)
        case UInt8(ascii: "r"):
            try enter(t, contents.map { String(cString: $0) } ?? "")
            let fields = try readAll()
            try exit()
            return .structure(fields)
        default:
            return try readBasic(t)
        }
    }

    private func enter(_ type: UInt8, _ contents: String) throws {
        let rc = sd_bus_message_enter_container(pointer, CChar(bitPattern: type), contents)
        if rc <= 0 { throw DBusError("enter_container", returned: rc < 0 ? rc : -EBADMSG) }
    }

    private func exit() throws {
        let rc = sd_bus_message_exit_container(pointer)
        if rc < 0 { throw DBusError("exit_container", returned: rc) }
    }

    private func readByteArray() throws -> [UInt8] {
        var p: UnsafeRawPointer?
        var size = 0
        let rc = sd_bus_message_read_array(pointer, CChar(bitPattern: UInt8(ascii: "y")), &p, &size)
        if rc < 0 { throw DBusError("read_array", returned: rc) }
        guard let p, size > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: p, count: size))
    }

    private func readBasic(_ t: UInt8) throws -> DBusValue {
        func read<T>(_ initial: T) throws -> T {
            var v = initial
            let rc = withUnsafeMutablePointer(to: &v) { sd_bus_message_read_basic(pointer, CChar(bitPattern: t), $0) }
            if rc <= 0 { throw DBusError("read_basic '\(Character(UnicodeScalar(t)))'", returned: rc < 0 ? rc : -EBADMSG) }
            return v
        }
        switch t {
        case UInt8(ascii: "y"): return .byte(try read(UInt8(0)))
        case UInt8(ascii: "b"): return .bool(try read(Int32(0)) != 0) // sd-bus reads a boolean into an int
        case UInt8(ascii: "n"): return .int16(try read(Int16(0)))
        case UInt8(ascii: "q"): return .uint16(try read(UInt16(0)))
        case UInt8(ascii: "i"): return .int32(try read(Int32(0)))
        case UInt8(ascii: "u"): return .uint32(try read(UInt32(0)))
        case UInt8(ascii: "x"): return .int64(try read(Int64(0)))
        case UInt8(ascii: "t"): return .uint64(try read(UInt64(0)))
        case UInt8(ascii: "d"): return .double(try read(Double(0)))
        case UInt8(ascii: "h"): return .unixFD(UInt32(bitPattern: try read(Int32(0))))
        case UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g"):
            let p = try read(UnsafePointer<CChar>?.none)
            let s = p.map { String(cString: $0) } ?? ""
            switch t {
            case UInt8(ascii: "s"): return .string(s)
            case UInt8(ascii: "o"): return .objectPath(s)
            default: return .signature(s)
            }
        default:
            throw DBusError(name: nil, message: "unsupported D-Bus type '\(Character(UnicodeScalar(t)))'", code: EBADMSG)
        }
    }
}

/// Writes arguments of a method call: the basic types and `a{sv}`, all BlueZ's calls here need.
struct DBusMessageWriter {
    let message: DBusMessage

    func append(_ value: DBusValue) throws {
        let m = message.pointer
        func basic<T>(_ t: UInt8, _ v: T) throws {
            var v = v
            let rc = withUnsafePointer(to: &v) { sd_bus_message_append_basic(m, CChar(bitPattern: t), $0) }
            if rc < 0 { throw DBusError("append_basic", returned: rc) }
        }
        func string(_ t: UInt8, _ s: String) throws {
            // For strings sd-bus takes the characters themselves, not a pointer to them.
            let rc = s.withCString { sd_bus_message_append_basic(m, CChar(bitPattern: t), $0) }
            if rc < 0 { throw DBusError("append_basic", returned: rc) }
        }
        func container(_ t: UInt8, _ contents: String, _ body: () throws -> Void) throws {
            var rc = sd_bus_message_open_container(m, CChar(bitPattern: t), contents)
            if rc < 0 { throw DBusError("open_container", returned: rc) }
            try body()
            rc = sd_bus_message_close_container(m)
            if rc < 0 { throw DBusError("close_container", returned: rc) }
        }
        switch value {
        case .byte(let v): try basic(UInt8(ascii: "y"), v)
        case .bool(let v): try basic(UInt8(ascii: "b"), Int32(v ? 1 : 0))
        case .int16(let v): try basic(UInt8(ascii: "n"), v)
        case .uint16(let v): try basic(UInt8(ascii: "q"), v)
        case .int32(let v): try basic(UInt8(ascii: "i"), v)
        case .uint32(let v): try basic(UInt8(ascii: "u"), v)
        case .int64(let v): try basic(UInt8(ascii: "x"), v)
        case .uint64(let v): try basic(UInt8(ascii: "t"), v)
        case .double(let v): try basic(UInt8(ascii: "d"), v)
        case .string(let s): try string(UInt8(ascii: "s"), s)
        case .objectPath(let s): try string(UInt8(ascii: "o"), s)
        case .signature(let s): try string(UInt8(ascii: "g"), s)
        case .variant(let inner):
            try container(UInt8(ascii: "v"), try Self.signature(of: inner)) { try append(inner) }
        case .dict(let entries):
            // Only a{sv} is written (the discovery filter).
            try container(UInt8(ascii: "a"), "{sv}") {
                for e in entries {
                    try container(UInt8(ascii: "e"), "sv") {
                        try append(e.key)
                        try append(e.value)
                    }
                }
            }
        default:
            throw DBusError(name: nil, message: "cannot write \(value)", code: EINVAL)
        }
    }

    static func signature(of v: DBusValue) throws -> String {
        switch v {
        case .byte: "y"
        case .bool: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .variant: "v"
        case .dict: "a{sv}"
        default: throw DBusError(name: nil, message: "no signature for \(v)", code: EINVAL)
        }
    }
}

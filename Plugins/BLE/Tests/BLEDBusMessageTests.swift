import CSDBus
import Foundation
@testable import LocusBLEPlugin
import LocusTestKit
import Testing

/// `DBusMessage`'s reader and `DBusMessageWriter` on real sd-bus messages, without a bus daemon:
/// a message is built on an unconnected sd-bus object, sealed as if sent, and read back.
@Suite struct BLEDBusMessageTests {
    /// Builds a method call holding `values` (written by `DBusMessageWriter`, or by `write`), seals it and rewinds it for reading.
    static func sealed(_ values: [DBusValue], write: ((OpaquePointer) -> Void)? = nil) throws -> DBusMessage {
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { throw DBusError(name: nil, message: "socketpair", code: errno) }
        var bus: OpaquePointer?
        #expect(sd_bus_new(&bus) >= 0)
        #expect(sd_bus_set_fd(bus, fds[0], fds[0]) >= 0)
        #expect(sd_bus_start(bus) >= 0)
        // No flush: the peer never answers the authentication, and a flush would wait for it.
        defer { sd_bus_close_unref(bus); close(fds[1]) }
        var m: OpaquePointer?
        let rc = sd_bus_message_new_method_call(bus, &m, "org.example", "/", "org.example.I", "M")
        guard rc >= 0, let m else { throw DBusError("new_method_call", returned: rc) }
        let message = DBusMessage(owning: m)
        if let write { write(m) } else {
            for v in values { try DBusMessageWriter(message: message).append(v) }
        }
        #expect(sd_bus_message_seal(m, 1, 0) >= 0)
        #expect(sd_bus_message_rewind(m, 1) >= 0)
        return message
    }

    @Test func basicTypesAndVariantsRoundTrip() throws {
        let values: [DBusValue] = [
            .byte(0xfe), .bool(true), .bool(false), .int16(-79), .uint16(0x004c), .int32(-5), .uint32(4_000_000_000),
            .int64(-1 << 40), .uint64(1 << 63), .double(2.5), .string("le"), .objectPath("/org/bluez/hci0"), .signature("a{sv}"),
            .variant(.int16(-60)), .variant(.variant(.string("x"))),
            .dict([.init(key: .string("Transport"), value: .variant(.string("le"))), .init(key: .string("RSSI"), value: .variant(.int16(-90)))]),
        ]
        let read = try Self.sealed(values).readAll()
        #expect(read == values)
    }

    @Test func bluezPropertyShapesAreRead() throws {
        // a{sv} with ay, a{qv} of ay, a{sv} of ay, as — written with sd-bus' own calls, as bluetoothd would.
        let m = try Self.sealed([]) { m in
            func open(_ t: Character, _ c: String) { _ = sd_bus_message_open_container(m, CChar(t.asciiValue!), c) }
            func close() { _ = sd_bus_message_close_container(m) }
            func str(_ s: String) { _ = s.withCString { sd_bus_message_append_basic(m, CChar(Character("s").asciiValue!), $0) } }
            func bytes(_ b: [UInt8]) { _ = b.withUnsafeBytes { sd_bus_message_append_array(m, CChar(Character("y").asciiValue!), $0.baseAddress, $0.count) } }
            open("a", "{sv}")
            open("e", "sv"); str("ManufacturerData"); open("v", "a{qv}"); open("a", "{qv}")
            open("e", "qv"); var id: UInt16 = 0x004c; _ = sd_bus_message_append_basic(m, CChar(Character("q").asciiValue!), &id)
            open("v", "ay"); bytes([0x02, 0x15, 0x42]); close(); close()
            close(); close(); close()
            open("e", "sv"); str("ServiceData"); open("v", "a{sv}"); open("a", "{sv}")
            open("e", "sv"); str("0000feaa-0000-1000-8000-00805f9b34fb"); open("v", "ay"); bytes([0x10, 0xf8]); close(); close()
            close(); close(); close()
            open("e", "sv"); str("UUIDs"); open("v", "as"); open("a", "s"); str("0000feaa-0000-1000-8000-00805f9b34fb"); close(); close(); close()
            open("e", "sv"); str("AdvertisingFlags"); open("v", "ay"); bytes([]); close(); close()
            close()
        }
        let value = try #require(try m.readValue())
        let dict = try #require(value.stringKeyedDictionary)
        let d = BlueZDeviceDecoding(dict)
        #expect(d.malformed.isEmpty)
        #expect(d.properties.manufacturerData == [0x004c: [0x02, 0x15, 0x42]])
        #expect(d.properties.serviceData == ["0000feaa-0000-1000-8000-00805f9b34fb": [0x10, 0xf8]])
        #expect(d.properties.uuids == ["0000feaa-0000-1000-8000-00805f9b34fb"])
        #expect(dict["AdvertisingFlags"] == .variant(.bytes([])))
        #expect(try m.readValue() == nil)
    }

    @Test func unsupportedValuesAreNotWritten() throws {
        #expect(throws: DBusError.self) { try Self.sealed([.array([.int32(1)])]) }
    }
}

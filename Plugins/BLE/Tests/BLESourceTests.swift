import Foundation
@testable import LocusBLEPlugin
import LocusCore
import LocusTestKit
import Testing

/// The `ble` source's D-Bus-independent parts: property values as BlueZ (or a broken peer)
/// sends them, which changes become observations, signal arguments, and the configuration.
/// The D-Bus reading itself is exercised against a real bus in `BLESourceMockTests`.
@Suite struct BLESourceTests {
    /// iBeacon manufacturer data of a Blue Charm BC011 (AOSP ScanRecordTest RECORD_IBEACON, Apache-2.0).
    static let iBeacon: [UInt8] = Array(hex: "0215426c7565436861726d426561636f6e730efe1355c5")
    static let adapter = "/org/bluez/hci0"
    static let device = "/org/bluez/hci0/dev_AA_BB_CC_00_00_01"

    static func bytes(_ b: [UInt8]) -> DBusValue { .variant(.bytes(b)) }

    static func deviceProperties(rssi: DBusValue? = .variant(.int16(-60))) -> [String: DBusValue] {
        var p: [String: DBusValue] = [
            "Address": .variant(.string("AA:BB:CC:00:00:01")),
            "AddressType": .variant(.string("random")),
            "Name": .variant(.string("BlueCharm")),
            "Paired": .variant(.bool(false)),
            "ManufacturerData": .variant(.dict([.init(key: .uint16(0x004c), value: bytes(iBeacon))])),
            "ServiceData": .variant(.dict([.init(key: .string("0000feaa-0000-1000-8000-00805f9b34fb"), value: bytes([0x10, 0xf8, 0x00]))])),
            "UUIDs": .variant(.array([.string("0000feaa-0000-1000-8000-00805f9b34fb")])),
            "TxPower": .variant(.int16(-4)),
        ]
        p["RSSI"] = rssi
        return p
    }

    @Test func decodesDeviceProperties() {
        let d = BlueZDeviceDecoding(Self.deviceProperties())
        #expect(d.malformed.isEmpty && d.carriesAdvertisement)
        #expect(d.properties.address == "AA:BB:CC:00:00:01" && d.properties.addressType == "random")
        #expect(d.properties.rssi == -60 && d.properties.txPower == -4 && d.properties.name == "BlueCharm")
        #expect(d.properties.manufacturerData == [0x004c: Self.iBeacon])
        #expect(d.properties.serviceData == ["0000feaa-0000-1000-8000-00805f9b34fb": [0x10, 0xf8, 0x00]])
        #expect(d.properties.uuids == ["0000feaa-0000-1000-8000-00805f9b34fb"])
    }

    @Test(arguments: [
        ("RSSI", DBusValue.variant(.string("-60"))),
        ("RSSI", DBusValue.variant(.int32(4000))),
        ("TxPower", DBusValue.variant(.bool(true))),
        ("Address", DBusValue.variant(.int32(1))),
        ("UUIDs", DBusValue.variant(.array([.int32(1)]))),
        ("ManufacturerData", DBusValue.variant(.dict([.init(key: .string("76"), value: .variant(.bytes([1])))]))),
        ("ManufacturerData", DBusValue.variant(.dict([.init(key: .uint16(76), value: .variant(.string("0215")))]))),
        ("ServiceData", DBusValue.variant(.dict([.init(key: .uint16(1), value: .variant(.bytes([1])))]))),
        ("ServiceData", DBusValue.variant(.int16(3))),
    ])
    func skipsAndNamesAValueOfTheWrongType(name: String, value: DBusValue) {
        var props = Self.deviceProperties()
        props[name] = value
        let d = BlueZDeviceDecoding(props)
        #expect(d.malformed == [name])
        // The rest of the update is kept.
        #expect(d.properties.name == "BlueCharm")
        #expect(name == "RSSI" ? d.properties.rssi == nil : d.properties.rssi == -60)
    }

    @Test func emptyArraysOfAnyElementTypeAreEmptyData() {
        // python-dbusmock's template declares ManufacturerData as an empty `aa{qv}`.
        let d = BlueZDeviceDecoding(["ManufacturerData": .variant(.array([])), "ServiceData": .variant(.array([]))])
        #expect(d.malformed.isEmpty)
        #expect(d.properties.manufacturerData == [:] && d.properties.serviceData == [:])
        // Bytes wrapped one by one in variants are still bytes.
        #expect(DBusValue.variant(.array([.variant(.byte(1)), .byte(2)])).byteArray == [1, 2])
        #expect(DBusValue.uint64(.max).integer == nil && DBusValue.variant(.variant(.uint32(7))).integer == 7)
    }

    @Test func publishesHeardAdvertisementsOnly() throws {
        var s = BLEScanSession(source: "ble0")
        s.use(adapter: Self.adapter)
        // Known from GetManagedObjects: cached, not heard.
        #expect(s.deviceAdded(path: Self.device, properties: Self.deviceProperties(), now: 0, seed: true) == nil)
        // RSSI alone: one more advertisement heard, with the data known so far.
        let aHeard = s.deviceChanged(path: Self.device, changed: ["RSSI": .variant(.int16(-70))], invalidated: [], now: 1)
        let a = try #require(aHeard)
        #expect(a.rssi == -70 && a.address == "AA:BB:CC:00:00:01" && a.addressType == "random" && a.source == "ble0")
        #expect(a.beacon?.format == "ibeacon" && a.beacon?.major == 3838 && a.beacon?.minor == 4949)
        #expect(a.manufacturerData == [.init(companyID: 76, data: "0215426c7565436861726d426561636f6e730efe1355c5")])
        #expect(a.serviceData.first?.uuid == "feaa")
        // Not an advertisement: connection state, name.
        #expect(s.deviceChanged(path: Self.device, changed: ["Connected": .variant(.bool(true))], invalidated: [], now: 2) == nil)
        #expect(s.deviceChanged(path: Self.device, changed: ["Name": .variant(.string("x"))], invalidated: [], now: 2) == nil)
        // RSSI invalidated (out of range): nothing to publish until it is heard again.
        #expect(s.deviceChanged(path: Self.device, changed: ["ManufacturerData": .variant(.dict([]))], invalidated: ["RSSI"], now: 3) == nil)
        let bHeard = s.deviceChanged(path: Self.device, changed: ["RSSI": .variant(.int16(-50))], invalidated: [], now: 4)
        let b = try #require(bHeard)
        #expect(b.beacon == nil && b.manufacturerData.isEmpty)
        #expect(s.counters.advertisements == 2 && s.counters.devicesSeen == 1)
    }

    @Test func removedDevicesAndOtherAdaptersAreForgotten() throws {
        var s = BLEScanSession(source: "ble0")
        s.use(adapter: Self.adapter)
        #expect(s.deviceAdded(path: Self.device, properties: Self.deviceProperties(), now: 0) != nil)
        s.deviceRemoved(path: Self.device)
        // A change for a device never announced starts from that change alone.
        let aHeard = s.deviceChanged(path: Self.device, changed: ["RSSI": .variant(.int16(-40))], invalidated: [], now: 1)
        let a = try #require(aHeard)
        #expect(a.address == "AA:BB:CC:00:00:01" && a.addressType == "unknown" && a.beacon == nil && a.rssi == -40)
        #expect(BLEScanSession.address(fromPath: "/org/bluez/hci0/dev_AA_BB") == nil)
        #expect(s.deviceAdded(path: "/org/bluez/hci1/dev_AA_BB_CC_00_00_09", properties: Self.deviceProperties(), now: 1) == nil)
        s.use(adapter: "/org/bluez/hci1")
        #expect(s.devices.isEmpty)
        s.use(adapter: nil)
        #expect(s.deviceAdded(path: Self.device, properties: Self.deviceProperties(), now: 2) == nil)
    }

    @Test func minIntervalAndThresholdDropAdvertisements() {
        var s = BLEScanSession(source: "ble0", rssiThreshold: -75, minInterval: 1.0)
        s.use(adapter: Self.adapter)
        var published: [Int] = []
        for (t, rssi) in [(0.0, -60), (0.5, -61), (0.99, -62), (1.0, -63), (1.2, -90), (2.5, -80), (2.6, -64)] {
            let change: [String: DBusValue] = ["RSSI": .variant(.int16(Int16(rssi)))]
            let adv = t == 0 ? s.deviceAdded(path: Self.device, properties: Self.deviceProperties(rssi: change["RSSI"]), now: t)
                : s.deviceChanged(path: Self.device, changed: change, invalidated: [], now: t)
            if let adv { published.append(adv.rssi) }
        }
        #expect(published == [-60, -63, -64])
        #expect(s.counters.rateLimited == 2 && s.counters.belowThreshold == 2)
    }

    @Test func decodesSignals() throws {
        let added = try BlueZSignal.decode(interface: "org.freedesktop.DBus.ObjectManager", member: "InterfacesAdded", path: "/", arguments: [
            .objectPath(Self.device),
            .dict([.init(key: .string("org.bluez.Device1"), value: .dict([.init(key: .string("RSSI"), value: .variant(.int16(-1)))]))]),
        ])
        #expect(added == .interfacesAdded(path: Self.device, interfaces: ["org.bluez.Device1": ["RSSI": .variant(.int16(-1))]]))
        let gone = try BlueZSignal.decode(interface: "org.freedesktop.DBus", member: "NameOwnerChanged", path: "/org/freedesktop/DBus",
                                          arguments: [.string("org.bluez"), .string(":1.4"), .string("")])
        #expect(gone == .bluezOwnerChanged(newOwner: ""))
        #expect(try BlueZSignal.decode(interface: "org.freedesktop.DBus", member: "NameOwnerChanged", path: nil,
                                       arguments: [.string("org.other"), .string(""), .string(":1.9")]) == nil)
        let changed = try BlueZSignal.decode(interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged", path: Self.adapter,
                                             arguments: [.string("org.bluez.Adapter1"), .dict([.init(key: .string("Powered"), value: .variant(.bool(false)))]), .array([])])
        #expect(changed == .propertiesChanged(path: Self.adapter, interface: "org.bluez.Adapter1", changed: ["Powered": .variant(.bool(false))], invalidated: []))
        #expect(throws: BlueZSignalError.self) {
            try BlueZSignal.decode(interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged", path: Self.adapter,
                                   arguments: [.string("org.bluez.Adapter1"), .int32(3), .array([])])
        }
        #expect(throws: BlueZSignalError.self) {
            try BlueZSignal.decode(interface: "org.freedesktop.DBus.ObjectManager", member: "InterfacesRemoved", path: "/", arguments: [.objectPath(Self.device)])
        }
        let objects = BlueZSignal.managedObjects(.dict([.init(key: .objectPath(Self.adapter), value: .dict([
            .init(key: .string("org.bluez.Adapter1"), value: .dict([.init(key: .string("Powered"), value: .variant(.bool(true)))]))]))]))
        #expect(objects?[Self.adapter]?["org.bluez.Adapter1"]?["Powered"]?.boolean == true)
    }

    @Test func configurationDefaultsAndLimits() throws {
        let c = try decodeConfiguration(BLEConfiguration.self, "{}")
        #expect(c.adapter == nil && c.busAddress == nil && c.rssiThreshold == nil && c.duplicateData && c.minInterval == 0 && c.reconnectMax == 10)
        let d = try decodeConfiguration(BLEConfiguration.self, #"{"adapter": "hci1", "bus": "unix:path=/tmp/x", "rssi_threshold": -90, "duplicate_data": false, "min_interval": 0.5}"#)
        #expect(d.adapter == "hci1" && d.busAddress == "unix:path=/tmp/x" && d.rssiThreshold == -90 && !d.duplicateData && d.minInterval == 0.5)
        #expect(configErrorKey(BLEConfiguration.self, #"{"adapter": "/org/bluez/hci0"}"#) == "adapter")
        #expect(configErrorKey(BLEConfiguration.self, #"{"bus": "session"}"#) == "bus")
        #expect(configErrorKey(BLEConfiguration.self, #"{"rssi_threshold": -200}"#) == "rssi_threshold")
        #expect(configErrorKey(BLEConfiguration.self, #"{"min_interval": -1}"#) == "min_interval")
        #expect(configErrorKey(BLEConfiguration.self, #"{"reconnect_max": 0}"#) == "reconnect_max")
        #expect(Set(BLEConfiguration.keys.map(\.name)) == ["adapter", "bus", "rssi_threshold", "duplicate_data", "min_interval", "reconnect_max"])
    }
}

private extension Array where Element == UInt8 {
    init(hex: String) {
        var out: [UInt8] = []
        var i = hex.startIndex
        while i < hex.endIndex {
            let j = hex.index(i, offsetBy: 2)
            out.append(UInt8(hex[i..<j], radix: 16)!)
            i = j
        }
        self = out
    }
}

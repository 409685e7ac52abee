import LocusBLE
import LocusCore
import Testing

@Suite struct BeaconDecoderTests {
    @Test func iBeaconFromAppleManufacturerData() throws {
        // ibeacon-ble-01 in ../shared/data/ble (Blue Charm, Home Assistant's ibeacon-ble tests).
        let data = try #require(Hex.bytes("0215426c7565436861726d426561636f6e730efe1355c5"))
        let b = try #require(BeaconDecoder.frame(companyID: 0x004C, data: data)).beacon
        #expect(b.format == "ibeacon")
        #expect(b.uuid == "426c7565-4368-6172-6d42-6561636f6e73")
        #expect(b.major == 3838 && b.minor == 4949 && b.measuredPower == -59)
        // The same bytes under another company are not an iBeacon.
        #expect(BeaconDecoder.frame(companyID: 21, data: data) == nil)
    }

    @Test func eddystonePowerIsConvertedTo1m() throws {
        // beacontools-06: EID with TX power 0xe3 = -29 dBm at 0 m.
        let frame = try #require(Hex.bytes("30e34549445f74657374"))
        let b = try #require(BeaconDecoder.eddystone(frame)).beacon
        #expect(b.format == "eddystone_eid")
        #expect(b.ephemeralID == "4549445f74657374")
        #expect(b.measuredPower == -29 - 41)
    }
}

@Suite struct BlueZDevicePropertiesTests {
    @Test func eddystoneServiceDataUnderTheFullUUIDIsDecoded() throws {
        var p = BlueZDeviceProperties(address: "f1:55:90:65:29:dc", addressType: "random", rssi: -74)
        // aioblescan-02's UID frame as BlueZ would hold it.
        p.merge(BlueZDeviceProperties(serviceData: ["0000feaa-0000-1000-8000-00805f9b34fb":
            try #require(Hex.bytes("00f60000000000000000006300000000005800"))]))
        let ad = try #require(p.advertisement(source: "hci0"))
        #expect(ad.address == "F1:55:90:65:29:DC")
        #expect(ad.serviceData.first?.uuid == "feaa")
        // 19 bytes: neither the 18- nor the 20-byte UID layout, so no beacon.
        #expect(ad.beacon == nil)
        p.merge(BlueZDeviceProperties(serviceData: ["0000feaa-0000-1000-8000-00805f9b34fb":
            try #require(Hex.bytes("00f6000000000000000000630000000000580000"))]))
        let uid = try #require(p.advertisement(source: "hci0")?.beacon)
        #expect(uid.namespace == "00000000000000000063" && uid.instance == "000000000058")
        #expect(uid.measuredPower == -10 - 41)
        p.merge(BlueZDeviceProperties(), invalidated: ["RSSI"])
        #expect(p.advertisement(source: "hci0") == nil)
    }
}

@Suite struct BeaconBytesTests {
    @Test func equalAndHashedByTheirBytesWhateverTheirOrigin() throws {
        let uuid = try #require(Hex.bytes("426c7565436861726d426561636f6e73"))
        let a = BeaconBytes(uuid)
        let data = try #require(Hex.bytes("0215426c7565436861726d426561636f6e730efe1355c5"))
        let frame = try #require(BeaconDecoder.frame(companyID: 0x004C, data: data))
        guard case .iBeacon(let b) = frame else { Issue.record("not an iBeacon: \(frame)"); return }
        #expect(b.uuid == a)
        #expect(Array(b.uuid) == uuid)
        #expect(Set([a, b.uuid]).count == 1)
        // A prefix is a different value even though the stored words past it are zero.
        #expect(BeaconBytes(uuid.prefix(15)) != a)
        #expect(BeaconBytes(uuid.prefix(15) + [0]) != BeaconBytes(uuid.prefix(15)))
        #expect(BeaconBytes([]).isEmpty && BeaconBytes(Array(repeating: 0xAB, count: 20)).count == 20)
        #expect(a.description == "426c7565436861726d426561636f6e73")
    }
}

import LocusBLE
import LocusCore
import Testing

/// The corrupt-data policy of the module README, case by case.
@Suite struct AdvertisingDataPolicyTests {
    @Test func zeroPaddingBetweenPDUAndScanResponse() {
        let ad = AdvertisingData([0x02, 0x01, 0x06, 0, 0, 0, 0x03, 0x09, 0x41, 0x42])
        #expect(ad.structureCount == 2 && ad.localName == "AB" && ad.nameIsComplete == true && ad.truncated == nil)
    }

    @Test func anOverlongStructureStopsParsingAndIsKept() throws {
        let ad = AdvertisingData([0x02, 0x01, 0x06, 0x07, 0x09, 0xAB, 0xCD, 0x02, 0x0A, 0x04])
        #expect(ad.localName == nil && ad.txPowerLevel == nil && ad.structureCount == 1)
        let t = try #require(ad.truncated)
        #expect(t.type == 0x09 && t.range == 3..<10 && t.valueRange == 5..<10)
    }

    @Test func impossibleSizesAreSkippedAndCounted() {
        // TX power of 2 bytes, manufacturer data without a whole company id, 16-bit service data
        // without its UUID, a 16-bit UUID list of 3 bytes (one whole UUID kept), empty flags.
        let ad = AdvertisingData([0x03, 0x0A, 0x00, 0x80, 0x02, 0xFF, 0x01, 0x02, 0x16, 0x01, 0x04, 0x03, 0xAA, 0xFE, 0x01, 0x01, 0x01])
        #expect(ad.malformedCount == 5)
        #expect(ad.txPowerLevel == nil && ad.manufacturerData.isEmpty && ad.serviceData.isEmpty && ad.flags == nil)
        #expect(ad.serviceUUIDs.map(\.description) == ["feaa"])
        #expect(ad.structureCount == 5)
    }

    @Test func completeNameWinsAndFirstOccurrencesStay() {
        let ad = AdvertisingData([0x03, 0x08, 0x41, 0x42, 0x02, 0x0A, 0xF4, 0x02, 0x0A, 0x00, 0x02, 0x09, 0x43, 0x01, 0x09])
        #expect(ad.localName == "C" && ad.nameIsComplete == true && ad.txPowerLevel == -12)
        let short = AdvertisingData([0x03, 0x08, 0x41, 0x42])
        #expect(short.localName == "AB" && short.nameIsComplete == false)
    }

    @Test func uuidWidthsAndTheirWireForm() {
        let ad = AdvertisingData([0x03, 0x03, 0xAA, 0xFE, 0x05, 0x05, 0x78, 0x56, 0x34, 0x12]
            + [0x11, 0x06] + [0xFB, 0x34, 0x9B, 0x5F, 0x80, 0x00, 0x00, 0x80, 0x00, 0x10, 0x00, 0x00, 0x0D, 0x18, 0x00, 0x00])
        #expect(ad.serviceUUIDs.map(\.description) == ["feaa", "12345678", "180d"])
        #expect(ad.serviceUUIDs.map(\.width) == [2, 4, 16])
        // 0x180d sent as 128 bits equals 0x180d sent as 16.
        #expect(ad.serviceUUIDs[2].shortValue == 0x180D && ad.hasIncompleteServiceUUIDList)
        #expect(BLEUUID(short: 0x180D, width: 2).fullString == "0000180d-0000-1000-8000-00805f9b34fb")
    }

    @Test func theManufacturerBeaconWinsOverEddystone() throws {
        // Eddystone-EID first, then an Apple iBeacon.
        let eid: [UInt8] = [0x0D, 0x16, 0xAA, 0xFE, 0x30, 0xE3] + [UInt8](repeating: 7, count: 8)
        let ibeacon: [UInt8] = [0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15] + [UInt8](repeating: 1, count: 16) + [0, 1, 0, 2, 0xC5]
        let ad = AdvertisingData(eid + ibeacon)
        guard case .iBeacon(let b) = ad.beacon else { Issue.record("\(String(describing: ad.beacon))"); return }
        #expect(b.major == 1 && b.minor == 2)
        let only = AdvertisingData(eid)
        #expect(only.beacon?.beacon.format == "eddystone_eid")
    }
}

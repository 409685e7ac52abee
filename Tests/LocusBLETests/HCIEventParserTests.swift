import LocusBLE
import LocusCore
import Testing

@Suite struct HCIEventParserTests {
    /// An extended report: evt_type(2) addr_type addr(6) phy phy2 sid tx rssi interval(2) daddr_type daddr(6) len data.
    static func extended(eventType: UInt16, address: [UInt8], tx: UInt8, rssi: UInt8, data: [UInt8]) -> [UInt8] {
        [UInt8(eventType & 0xFF), UInt8(eventType >> 8), 0x01] + address + [0x01, 0x00, 0xFF, tx, rssi, 0, 0, 0]
            + [UInt8](repeating: 0, count: 6) + [UInt8(data.count)] + data
    }

    @Test func extendedReportsWithTxPowerAndMissingRSSI() throws {
        let name: [UInt8] = [0x04, 0x09, 0x46, 0x6F, 0x6F] // "Foo"
        let r1 = Self.extended(eventType: 0x0013, address: [0x66, 0x55, 0x44, 0x33, 0x22, 0x11], tx: 0xF4, rssi: 0xBA, data: name)
        let r2 = Self.extended(eventType: 0x0000, address: [1, 2, 3, 4, 5, 6], tx: 0x7F, rssi: 0x7F, data: [])
        let params: [UInt8] = [0x0D, 2] + r1 + r2
        let e = try HCIEventParser.parse([0x04, 0x3E, UInt8(params.count)] + params).get()
        #expect(e.subevent == 0x0D && e.quirks == [])
        #expect(e.reports.count == 2)
        let a = e.reports[0]
        #expect(a.isExtended && a.eventType == 0x13 && a.legacyPDUName == "ADV_IND")
        #expect(a.address.description == "11:22:33:44:55:66" && a.addressKind == "random")
        #expect(a.txPower == -12 && a.rssi == -70 && Array(a.data) == name)
        let obs = try #require(BLEAdvertisement(report: a, source: "hci0"))
        #expect(obs.name == "Foo" && obs.txPower == -12 && obs.rssi == -70)
        // 0x7F: not available. No RSSI, no observation.
        #expect(e.reports[1].txPower == nil && e.reports[1].rssi == nil && e.reports[1].legacyPDUName == nil)
        #expect(BLEAdvertisement(report: e.reports[1], source: "hci0") == nil)
    }

    @Test func severalLegacyReportsAreReadOneAfterTheOther() throws {
        let r1: [UInt8] = [0x00, 0x00, 1, 2, 3, 4, 5, 6, 3, 0x02, 0x01, 0x06, 0xC0]
        let r2: [UInt8] = [0x04, 0x01, 6, 5, 4, 3, 2, 1, 0, 0xB0]
        let params: [UInt8] = [0x02, 2] + r1 + r2
        let e = try HCIEventParser.parse([0x3E, UInt8(params.count)] + params).get()
        #expect(e.reports.map(\.address.description) == ["06:05:04:03:02:01", "01:02:03:04:05:06"])
        #expect(e.reports.map(\.rssi) == [-64, -80])
        #expect(e.reports[1].legacyPDUName == "SCAN_RSP" && e.reports[1].data.isEmpty)
        #expect(AdvertisingData(Array(e.reports[0].data)).flags == 0x06)
    }

    @Test func whatIsNotAnAdvertisingReport() {
        // LE Connection Complete.
        #expect(HCIEventParser.parse([0x04, 0x3E, 0x13, 0x01] + [UInt8](repeating: 0, count: 18)) == .failure(.otherSubevent(1)))
        // Command Complete.
        #expect(HCIEventParser.parse([0x04, 0x0E, 0x04, 0x01, 0x0C, 0x20, 0x00]) == .failure(.notLEMetaEvent))
        #expect(HCIEventParser.parse([0x3E, 0x02, 0x02, 0x00]) == .failure(.noReports))
        // The report says 5 data bytes; 2 are there.
        #expect(HCIEventParser.parse([0x3E, 0x0E, 0x02, 0x01, 0, 0, 1, 2, 3, 4, 5, 6, 5, 0x02, 0x01]) == .failure(.truncated))
        #expect(HCIEventParser.parse([]) == .failure(.notLEMetaEvent))
        #expect(HCIEventParser.reportBody([0, 0, 1, 2, 3]) == .failure(.truncated))
    }

    @Test func trailingBytesAreReported() throws {
        let params: [UInt8] = [0x02, 1, 0x03, 0x00, 1, 2, 3, 4, 5, 6, 0, 0xC8, 0xEE]
        let e = try HCIEventParser.parse([0x3E, UInt8(params.count)] + params).get()
        #expect(e.quirks == .trailingBytes && e.reports[0].rssi == -56)
    }
}

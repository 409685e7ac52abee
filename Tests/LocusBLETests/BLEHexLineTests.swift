import LocusBLE
import LocusCore
import Testing

/// The `locus decode` BLE line format.
@Suite struct BLEHexLineTests {
    @Test func fieldsByCount() throws {
        let a = try #require(BLEHexLine.parse("2024-05-17T08:00:00.5Z AA:bb:CC:dd:EE:ff/random -70 0x020106")).get()
        #expect(a.time == EventTime(iso8601: "2024-05-17T08:00:00.500Z") && a.address?.description == "AA:BB:CC:DD:EE:FF")
        #expect(a.addressType == "random" && a.rssi == -70 && a.payload == .advertisingData([2, 1, 6]))
        let b = try #require(BLEHexLine.parse("1715932800.25\t020106")).get()
        #expect(b.time?.milliseconds == 1_715_932_800_250 && b.address == nil)
        let c = try #require(BLEHexLine.parse("11:22:33:44:55:66 -1 ad:3e0201")).get()
        #expect(c.time == nil && c.payload == .advertisingData([0x3E, 0x02, 0x01]))
        #expect(BLEHexLine.parse("") == nil && BLEHexLine.parse("   # comment") == nil)
    }

    @Test func refusals() {
        #expect(BLEHexLine.parse("a b c d e") == .failure(.tooManyFields))
        #expect(BLEHexLine.parse("yesterday 0201") == .failure(.badTime("yesterday")))
        #expect(BLEHexLine.parse("11:22:33:44:55 -1 0201") == .failure(.badAddress("11:22:33:44:55")))
        #expect(BLEHexLine.parse("11:22:33:44:55:66/other -1 0201") == .failure(.badAddress("11:22:33:44:55:66/other")))
        #expect(BLEHexLine.parse("11:22:33:44:55:66 loud 0201") == .failure(.badRSSI("loud")))
        #expect(BLEHexLine.parse("02010") == .failure(.badHex))
        #expect(BLEHexLine.parse("hci:020106") == .failure(.badHCI(.notLEMetaEvent)))
        #expect(BLEHexLine.detect(Array("# x\n\n2024-05-17T08:00:00Z 020106\n".utf8)))
        #expect(!BLEHexLine.detect(Array("$GPRMC,1,2\n".utf8)))
        // Unix seconds past what milliseconds in Int64 hold trapped (seen in the gpsd reader by
        // its fuzz target; the same conversion was here).
        #expect(BLEHexLine.parse("99999999999999999999 0201") == .failure(.badTime("99999999999999999999")))
    }
}

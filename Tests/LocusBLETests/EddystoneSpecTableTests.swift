import LocusBLE
import Testing

/// The Eddystone specification's tables (`Fixtures/eddystone-spec-tables.json`) against the codec.
@Suite struct EddystoneSpecTableTests {
    static func table(_ path: String...) -> [String: JSONValue] {
        var v: JSONValue = .object(Vector.specTables)
        for p in path { v = v.object?[p] ?? .null }
        return v.object ?? [:]
    }

    static func code(_ hex: String) -> UInt8 { UInt8(hex.dropFirst(2), radix: 16)! }

    @Test func everySchemePrefixDecodesAndEncodes() throws {
        let schemes = Self.table("url_frame", "scheme_prefix")
        #expect(schemes.count == 4)
        for (hex, prefix) in schemes {
            let p = try #require(prefix.string)
            #expect(EddystoneURLCodec.decode(scheme: Self.code(hex), body: Array("x".utf8)) == p + "x")
            let e = try #require(EddystoneURLCodec.encode(p + "x"))
            #expect(e.scheme == Self.code(hex) && e.body == [0x78])
        }
        #expect(EddystoneURLCodec.decode(scheme: 4, body: [0x78]) == nil)
    }

    @Test func everyExpansionCodeDecodesAndEncodes() throws {
        let expansions = Self.table("url_frame", "expansion_codes")
        #expect(expansions.count == 14)
        for (hex, text) in expansions {
            let t = try #require(text.string)
            let c = Self.code(hex)
            #expect(EddystoneURLCodec.decode(scheme: 2, body: [0x61, c, 0x62]) == "http://a" + t + "b")
            let e = try #require(EddystoneURLCodec.encode("http://a" + t + "b"))
            #expect(e.body == [0x61, c, 0x62], "\(hex)")
        }
    }

    @Test func reservedCodesAreRejected() {
        // "0x0e..0x20 and 0x7f..0xff are reserved for future use".
        for b in Array(UInt8(0x0E)...0x20) + Array(UInt8(0x7F)...0xFF) {
            #expect(EddystoneURLCodec.decode(scheme: 2, body: [0x61, b]) == nil)
        }
    }

    @Test func txPowerExamplesAndTheOneMetreConversion() throws {
        let examples = Self.table("tx_power", "examples")
        #expect(examples.count == 2)
        for (hex, dBm) in examples {
            let frame: [UInt8] = [0x10, Self.code(hex), 0x02, 0x61]
            guard case .eddystoneURL(let u) = BeaconDecoder.eddystone(frame) else { Issue.record("\(hex)"); continue }
            #expect(Int(u.txPowerAt0m) == dBm.int)
            #expect(BeaconDecoder.eddystone(frame)?.beacon.measuredPower == dBm.int! - 41)
        }
    }

    @Test func frameTypesFromTheTable() {
        let types = Self.table("frame_types")
        #expect(types.count == 5)
        // A minimal valid frame of each decoded type; 0x40 is reserved and not decoded.
        let frames: [String: [UInt8]] = [
            "0x00": [0x00, 0xEE] + Array(repeating: 1, count: 16),
            "0x10": [0x10, 0xEE, 0x00, 0x61],
            "0x20": [0x20, 0x00] + Array(repeating: 0, count: 12),
            "0x30": [0x30, 0xEE] + Array(repeating: 2, count: 8),
            "0x40": [0x40] + Array(repeating: 0, count: 20),
        ]
        for (hex, name) in types {
            let f = BeaconDecoder.eddystone(frames[hex]!)
            if name.string == "RESERVED" { #expect(f == nil) } else {
                #expect(f?.beacon.format == "eddystone_" + name.string!.lowercased(), "\(hex)")
            }
        }
    }

    @Test func plainTLMLayout() throws {
        // tlm_plain_frame: VBATT 1 mV/bit (0 = not supported), TEMP 8.8 (0x8000 = not supported).
        let unsupported = try #require(BeaconDecoder.eddystone([0x20, 0x00, 0, 0, 0x80, 0x00, 0, 0, 0, 1, 0, 0, 0, 10])).beacon
        #expect(unsupported.batteryMillivolts == nil && unsupported.temperature == nil)
        #expect(unsupported.advertisingCount == 1 && unsupported.uptime == 1.0)
        let negative = try #require(BeaconDecoder.eddystone([0x20, 0x00, 0x0B, 0xB8, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0, 0])).beacon
        #expect(negative.batteryMillivolts == 3000 && negative.temperature == -0.5)
    }
}

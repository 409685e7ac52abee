import LocusBLE
import LocusCore
import Testing

/// Truncated and random input never traps, whichever parser reads it.
@Suite struct RobustnessTests {
    /// Runs every reader on `b`; returns how many produced something (so the work is used).
    @discardableResult
    static func readEverything(_ b: [UInt8]) -> Int {
        var n = 0
        let ad = AdvertisingData(b)
        n += ad.structures.count + ad.serviceUUIDs.count + ad.manufacturerData.count + ad.serviceData.count
        n += ad.localName == nil ? 0 : 1
        if ad.beacon != nil { n += 1 }
        _ = BLEAdvertisement(advertisingData: ad, address: BLEAddress(value: 1), addressType: "random", rssi: -70, source: "t")
        if case .success(let e) = HCIEventParser.parse(b) {
            for r in e.reports { n += 1; _ = BLEAdvertisement(report: r, source: "t") }
        }
        if case .success = HCIEventParser.reportBody(b) { n += 1 }
        if BeaconDecoder.eddystone(b) != nil { n += 1 }
        if BeaconDecoder.frame(companyID: 0x004C, data: b) != nil { n += 1 }
        if BeaconDecoder.frame(companyID: 0x0118, data: b) != nil { n += 1 }
        if let s = b.first, EddystoneURLCodec.decode(scheme: s, body: b.dropFirst()) != nil { n += 1 }
        return n
    }

    @Test func everyPrefixOfEveryVector() {
        var decoded = 0
        for v in Vector.all {
            let b = v.bytes
            for end in 0...b.count { decoded += Self.readEverything(Array(b[..<end])) }
            // And every suffix: readers must not assume where the input starts.
            for start in 0...b.count { decoded += Self.readEverything(Array(b[start...])) }
        }
        #expect(decoded > 1000)
    }

    @Test func seededRandomBytes() {
        var rng = SplitMix64(seed: 0x10C05)
        var decoded = 0
        for _ in 0..<20_000 {
            let len = Int(rng.next() % 80)
            var b = (0..<len).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            // Bias towards plausible headers so the deeper paths run too.
            switch rng.next() % 4 {
            case 0 where len > 3: b[0] = 0x04; b[1] = 0x3E; b[3] = rng.next() % 2 == 0 ? 0x02 : 0x0D
            case 1 where len > 2: b[0] = 0x3E; b[2] = 0x02
            case 2 where len > 4: b[0] = UInt8(len - 1); b[1] = 0xFF; b[2] = 0x4C; b[3] = 0x00
            default: break
            }
            decoded += Self.readEverything(b)
        }
        #expect(decoded > 0)
    }

    @Test func mutatedVectorsKeepTheirShape() {
        // Single-byte changes of real payloads: the result may change, nothing may trap.
        var rng = SplitMix64(seed: 42)
        for v in Vector.all {
            var b = v.bytes
            guard !b.isEmpty else { continue }
            for _ in 0..<50 {
                b[Int(rng.next() % UInt64(b.count))] = UInt8(truncatingIfNeeded: rng.next())
                Self.readEverything(b)
            }
        }
    }
}

/// A small deterministic generator (Steele, Lea & Flood 2014), so failures reproduce.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

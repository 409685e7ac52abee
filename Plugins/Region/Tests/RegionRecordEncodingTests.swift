import LocusCore
@testable import LocusRegionPlugin
import LocusTestKit
import Testing

/// The region service's state records are written by hand (`ConditionRecord.encoded`,
/// `RegionDeviceState.Times.encoded`): they must read back as what was written, bit for bit
/// where a restart depends on it (coordinates), and stay the canonical sorted-key JSON the
/// records were before, so stores written by either read the same.
@Suite struct RegionRecordEncodingTests {
    private static func canonical(_ bytes: [UInt8]) throws -> [UInt8] { try JSONValue.read(bytes).encoded() }

    @Test func conditionRecordsReadBackAsWritten() throws {
        var rng = SeededRandom(seed: 7)
        func time() -> EventTime? {
            Bool.random(using: &rng) ? EventTime(milliseconds: Int64.random(in: 0...4_102_444_800_000, using: &rng)) : nil
        }
        for i in 0..<2000 {
            var r = ConditionRecord(fingerprint: "circle:\(i):\"quoted\"\\")
            r.state = [.unknown, .satisfied, .unsatisfied].randomElement(using: &rng)!
            r.assumed = Bool.random(using: &rng)
            r.since = time()
            r.runStart = time()
            r.runOrigin = time()
            r.dwellPublished = Bool.random(using: &rng)
            r.lastEventTime = time()
            r.lastEventType = Bool.random(using: &rng) ? ["region.enter", "region.exit", "région ✓"].randomElement(using: &rng)! : nil
            let device = ["", "van-7", "owntracks/bob/phone", "ü\n"].randomElement(using: &rng)!
            let bytes = r.encoded(device: device, region: "f\(i)")
            #expect(try Self.canonical(bytes) == bytes, "\(String(decoding: bytes, as: UTF8.self))")
            let json = try JSONValue.read(bytes)
            #expect(ConditionRecord(json: json) == r)
            #expect(json["device"]?.stringValue == device && json["region"]?.stringValue == "f\(i)")
        }
    }

    @Test func deviceTimesReadBackBitForBit() throws {
        var rng = SeededRandom(seed: 11)
        for _ in 0..<2000 {
            let lat = Double.random(in: -90...90, using: &rng)
            let lon = [Double.random(in: -180...180, using: &rng), 13, -0.5, 1e-7].randomElement(using: &rng)!
            let accuracy: Double? = [nil, 5, Double.random(in: 0...1e4, using: &rng), 0.1].randomElement(using: &rng)!
            let fix = RegionFix(source: "gps\(Int.random(in: 0...9, using: &rng))", coordinate: Coordinate(latitude: lat, longitude: lon),
                                horizontalAccuracy: accuracy, time: EventTime(milliseconds: Int64.random(in: 0...4_102_444_800_000, using: &rng)))
            let times = RegionDeviceState.Times(firstFixTime: Bool.random(using: &rng) ? EventTime(milliseconds: 1_000) : nil,
                                                lastFixTime: fix.time, lastFix: Bool.random(using: &rng) ? fix : nil)
            let bytes = times.encoded
            #expect(try Self.canonical(bytes) == bytes, "\(String(decoding: bytes, as: UTF8.self))")
            let back = RegionDeviceState.Times(json: try JSONValue.read(bytes))
            #expect(back == times)
            if let f = back.lastFix {
                #expect(f.coordinate.latitude.bitPattern == lat.bitPattern && f.coordinate.longitude.bitPattern == lon.bitPattern)
            }
        }
    }
}

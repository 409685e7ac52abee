import Foundation
@testable import LocusBeaconPlugin
import LocusCore
import LocusTestKit
import Testing

/// Issue 17, item 3: AltBeacon ids as the Android Beacon Library writes them (id1 a UUID, id2 and
/// id3 16-bit integers), in events and `obs.ble`, and as conditions with iBeacon's wildcards.
struct BeaconAltBeaconIdentifierTests {
    typealias S = BeaconScene
    static let id = "2f234454cf6d4a0fadf2f4911ba9ffa6" + "0001" + "0102"

    static func altBeacon(_ hex: String = id) -> BLEAdvertisement.Beacon {
        .init(format: "altbeacon", beaconID: hex, measuredPower: -59)
    }

    @Test func aStandardIdSplitsAsTheLibraryWritesIt() throws {
        let ids = try #require(AltBeaconIdentifiers(beaconID: Self.id))
        #expect(ids == AltBeaconIdentifiers(id1: "2f234454-cf6d-4a0f-adf2-f4911ba9ffa6", id2: 1, id3: 258))
        #expect(AltBeaconIdentifiers(beaconID: "2f23") == nil && AltBeaconIdentifiers(beaconID: String(repeating: "g", count: 40)) == nil)
        // obs.ble carries both forms; reading it back gives the same advertisement.
        let ad = BLEAdvertisement(source: "ble0", address: "4A:00:00:00:00:01", addressType: "random", rssi: -60, beacon: Self.altBeacon())
        var w = JSONWriter()
        ad.write(to: &w)
        let text = String(decoding: w.bytes, as: UTF8.self)
        #expect(text.contains(#""beacon_id":"\#(Self.id)","id1":"2f234454-cf6d-4a0f-adf2-f4911ba9ffa6","id2":1,"id3":258"#), "\(text)")
        #expect(try JSONReader.read(w.bytes) { r in try BLEAdvertisement(from: &r) } == ad)
    }

    @Test(arguments: [
        ([:] as [String: JSONValue], true), (["id2": 1], true), (["id2": 1, "id3": 258], true),
        (["id2": 2], false), (["id2": 1, "id3": 259], false),
    ])
    func conditionsMatchWithWildcards(_ extra: [String: JSONValue], _ matches: Bool) throws {
        let c = try S.condition("door", ["id1": "2F234454CF6D4A0FADF2F4911BA9FFA6"].merging(extra) { $1 })
        var run = try S.service([c])
        try S.play(&run, ads: [S.ad(Self.altBeacon(), at: 1)], ticks: 0...2)
        let enters = run.all(BeaconEnter.self)
        #expect(enters.count == (matches ? 1 : 0))
        if matches {
            var w = JSONWriter()
            enters[0].event.write(to: &w)
            #expect(String(decoding: w.bytes, as: UTF8.self).contains(#""id1":"2f234454-cf6d-4a0f-adf2-f4911ba9ffa6","id2":1,"id3":258"#))
        }
    }

    @Test func badAltBeaconConditionsAreRefusedWithTheReason() {
        func error(_ d: [String: JSONValue]) -> String? {
            do { _ = try S.condition("door", d); return nil } catch { return "\(error)" }
        }
        #expect(error(["id1": "2f23", "id2": 1])?.contains("id1 must be 32 hex digits") == true)
        #expect(error(["id1": "2f234454cf6d4a0fadf2f4911ba9ffa6", "id3": 1])?.contains("id3 needs id2") == true)
        #expect(error(["id1": "2f234454cf6d4a0fadf2f4911ba9ffa6", "id2": 70000])?.contains("id2 must be a whole number") == true)
        #expect(error(["uuid": "2f234454cf6d4a0fadf2f4911ba9ffa6", "id2": 1])?.contains("id2 goes with id1") == true)
        #expect(error(["id1": "2f234454cf6d4a0fadf2f4911ba9ffa6", "altbeacon": "2f23"])?.contains("give only one of") == true)
    }
}

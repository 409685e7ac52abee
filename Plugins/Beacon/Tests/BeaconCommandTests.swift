import Foundation
@testable import LocusBeaconPlugin
import LocusCore
import LocusTestKit
import Testing

/// `beacon.add|remove|list|record` on the service (the runtime's part is in EndToEndTests).
@Suite struct BeaconCommandTests {
    typealias S = BeaconScene

    static func handle(_ run: inout ServiceRun<BeaconService>, _ command: String, _ args: [String: JSONValue],
                       output: inout ServiceOutput) throws -> JSONValue {
        try run.service.handle(command: command, arguments: .object(args), output: &output)
    }

    @Test func addListRecordRemove() throws {
        var run = try S.service([BeaconServiceTests.exact()])
        try run.feed(S.ad(S.iBeacon(), at: 10))
        var out = ServiceOutput()
        let added = try Self.handle(&run, "beacon.add", ["id": "lab", "uuid": .string(S.charmUUID), "major": 3838, "ranging": true,
                                                        "properties": ["floor": 2]], output: &out)
        #expect(added["definition"]?["origin"] == "runtime" && added["state"] == "unknown")
        // The add publishes the state at the time of the last message.
        #expect(out.events.map(\.topic) == ["beacon.state.lab"])
        #expect(out.events.first?.time == LocationScene.time(10))
        try run.feed(S.ad(S.iBeacon(), at: 11))
        #expect(run.events.map(\.topic).filter { !$0.hasPrefix("beacon.range.") } == ["beacon.enter.desk", "beacon.enter.lab"])
        let list = try Self.handle(&run, "beacon.list", [:], output: &out)
        #expect(list["count"] == 2)
        let satisfied = try Self.handle(&run, "beacon.list", ["state": "satisfied", "limit": 1], output: &out)
        #expect(satisfied["count"] == 2 && satisfied["truncated"] == .bool(true))
        var out2 = ServiceOutput()
        let record = try Self.handle(&run, "beacon.record", ["id": "lab"], output: &out2)
        #expect(record["refinement"]?["minor"] == 4949 && record["state"] == "satisfied")
        let snapshot = try #require(out2.events.first?.payload as? BeaconStateSnapshot)
        #expect(snapshot.body.state == .satisfied && snapshot.body.refinement?.major == 3838)
        #expect(try Self.handle(&run, "beacon.remove", ["id": "lab"], output: &out)["removed"] == "lab")
        #expect(try Self.handle(&run, "beacon.list", [:], output: &out)["count"] == 1)
    }

    @Test(arguments: [
        ("beacon.add", ["id": "x"] as [String: JSONValue], "needs one of uuid"),
        ("beacon.add", ["id": "x", "uuid": "nothex"], "uuid must be 32 hex digits"),
        ("beacon.add", ["id": "x", "uuid": .string(BeaconScene.charmUUID), "minor": 1], "minor needs major"),
        ("beacon.add", ["id": "x", "altbeacon": "2f23", "origin": "config"], "origin is not an argument"),
        ("beacon.add", ["id": "desk", "altbeacon": "2f23"], "defined in config"),
        ("beacon.add", ["id": "Bad Id", "altbeacon": "2f23"], "topic segment"),
        ("beacon.add", ["id": "x", "altbeacon": "2f23", "ranging": "yes"], "ranging must be true or false"),
        ("beacon.add", ["id": "x", "namespace": .number(12345678901234567890)], "quote it"),
        ("beacon.remove", ["id": "desk"], "defined in config"),
        ("beacon.remove", ["id": "nope"], "no beacon condition 'nope'"),
        ("beacon.remove", [:], "missing id"),
        ("beacon.record", ["id": "desk", "extra": 1], "unknown argument 'extra'"),
        ("beacon.list", ["state": "inside"], "state must be"),
        ("beacon.list", ["limit": -1], "limit must be"),
        ("beacon.dance", [:], "does not answer"),
    ])
    func badRequestsAreRefusedAndChangeNothing(command: String, args: [String: JSONValue], message: String) throws {
        var run = try S.service([BeaconServiceTests.exact()])
        try run.feed(S.ad(S.iBeacon(), at: 0))
        let before = (run.service.monitor.ids, run.service.monitor.record("desk"))
        var out = ServiceOutput()
        do {
            _ = try Self.handle(&run, command, args, output: &out)
            Issue.record("\(command) \(args) was accepted")
        } catch let e as ServiceCommandError {
            #expect(e.description.contains(message), "\(e.description)")
        }
        #expect(run.service.monitor.ids == before.0 && run.service.monitor.record("desk") == before.1)
    }

    @Test func aDigitOnlyPrefixFromTheCommandLineIsText() throws {
        var run = try S.service([])
        var out = ServiceOutput()
        // `locus ctl beacon add altbeacon=2023` sends 2023 as a number.
        let r = try Self.handle(&run, "beacon.add", ["id": "a", "altbeacon": 2023], output: &out)
        #expect(r["definition"]?["altbeacon"] == "2023")
    }

    @Test func replacingARuntimeConditionKeepsItsStateWhenTheMatchIsTheSame() throws {
        var run = try S.service([])
        var out = ServiceOutput()
        _ = try Self.handle(&run, "beacon.add", ["id": "a", "uuid": .string(S.charmUUID)], output: &out)
        try run.feed(S.ad(S.iBeacon(), at: 0))
        _ = try Self.handle(&run, "beacon.add", ["id": "a", "uuid": .string(S.charmUUID), "ranging": true], output: &out)
        #expect(run.service.monitor.record("a")?.state == .satisfied)
        _ = try Self.handle(&run, "beacon.add", ["id": "a", "uuid": .string(S.charmUUID), "major": 1], output: &out)
        #expect(run.service.monitor.record("a")?.state == .unknown)
    }
}

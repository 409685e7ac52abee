import Foundation
import LocusConditions
import LocusCore
import Logging
import Testing

/// The condition machine region and beacon share (`ConditionRecording`): its rules, on a
/// record with nothing else.
@Suite struct ConditionRecordingTests {
    struct Record: ConditionRecording, Equatable {
        var state: ConditionState = .unknown
        var assumed = false
        var since: EventTime?
        var dwellPublished = false
        var lastEventType: String?
        var lastEventTime: EventTime?
        var fingerprint: String

        init(fingerprint: String = "f") { self.fingerprint = fingerprint }
    }

    static func t(_ s: Double) -> EventTime { EventTime(milliseconds: 1_700_000_000_000 + Int64(s * 1000)) }

    static func due(_ r: inout Record, _ time: EventTime, _ dwell: Double?) -> Bool {
        r.dwellDue(at: time, dwell: dwell, prefix: "thing")
    }

    static func decide(_ r: inout Record, _ side: ConditionState, since: Double, at: Double,
                         entry: Bool = true, exit: Bool = true) -> ConditionEventKind? {
        r.decide(side, since: Self.t(since), at: Self.t(at), notifyOnEntry: entry, notifyOnExit: exit, prefix: "thing")
    }

    @Test func unknownToOutsideIsSilentAnyOtherChangeIsAnEvent() {
        var r = Record()
        #expect(Self.decide(&r, .unsatisfied, since: 1, at: 1) == nil)
        #expect(r.state == .unsatisfied && r.since == Self.t(1) && r.lastEventType == nil)
        #expect(Self.decide(&r, .unsatisfied, since: 2, at: 2) == nil && r.since == Self.t(1))
        #expect(Self.decide(&r, .satisfied, since: 3, at: 5) == .enter)
        #expect(r.since == Self.t(3) && r.lastEventType == "thing.enter" && r.lastEventTime == Self.t(5))
        #expect(Self.decide(&r, .unsatisfied, since: 8, at: 9) == .exit && r.lastEventType == "thing.exit")
        var fresh = Record()
        #expect(Self.decide(&fresh, .satisfied, since: 1, at: 1) == .enter)
        #expect(Self.decide(&fresh, .unknown, since: 2, at: 2) == nil && fresh.state == .satisfied)
    }

    @Test func aChangeNotNotifiedIsSilentButStillAChange() {
        var r = Record()
        #expect(Self.decide(&r, .satisfied, since: 1, at: 1, entry: false) == nil)
        #expect(r.state == .satisfied && r.lastEventType == nil)
        #expect(Self.decide(&r, .unsatisfied, since: 2, at: 2, exit: false) == nil && r.state == .unsatisfied)
    }

    @Test func anAssumedStateIsConfirmedSilentlyOrCorrectedWithAnEvent() {
        var r = Record()
        r.assume(.satisfied)
        #expect(r.state == .satisfied && r.assumed)
        #expect(Self.decide(&r, .satisfied, since: 1, at: 1) == nil && !r.assumed && r.since == nil)
        var wrong = Record()
        wrong.assume(.satisfied)
        #expect(Self.decide(&wrong, .unsatisfied, since: 1, at: 1) == .exit && !wrong.assumed)
        var none = Record()
        none.assume(.unknown)
        none.assume(nil)
        #expect(none == Record())
    }

    @Test func dwellOncePerDecidedStay() {
        var r = Record()
        #expect(!Self.due(&r, Self.t(100), 10))
        _ = Self.decide(&r, .satisfied, since: 0, at: 0)
        #expect(!Self.due(&r, Self.t(9.9), 10))
        #expect(!Self.due(&r, Self.t(20), nil))
        #expect(Self.due(&r, Self.t(10), 10) && r.lastEventType == "thing.dwell")
        #expect(!Self.due(&r, Self.t(30), 10))
        // A new stay dwells again; an assumed one does not until it is confirmed.
        _ = Self.decide(&r, .unsatisfied, since: 40, at: 40)
        _ = Self.decide(&r, .satisfied, since: 50, at: 50)
        #expect(Self.due(&r, Self.t(60), 10))
        var assumed = Record()
        assumed.assume(.satisfied)
        assumed.since = Self.t(0)
        #expect(!Self.due(&assumed, Self.t(60), 10))
    }
}

/// Runtime conditions as a restart gives them back: config wins, damage is dropped.
@Suite struct RuntimeConditionsTests {
    struct Condition: MonitoredCondition {
        var id: String
        var fingerprint: String { id }
        var notifyOnEntry = true
        var notifyOnExit = true
        var dwell: Double?
        var origin = ConditionOrigin.runtime
    }

    struct Unreadable: Error {}

    @Test func configWinsAndDamageIsDroppedInIdOrder() throws {
        let records: [String: [UInt8]] = [
            "condition/b": Array(#"{"id":"b"}"#.utf8),
            "condition/a": Array(#"{"id":"a"}"#.utf8),
            "condition/home": Array(#"{"id":"home"}"#.utf8),
            "condition/c": Array("{not json".utf8),
            "condition/d": Array(#"{"id":"elsewhere"}"#.utf8),
            "condition/e": Array(#"{"nope":1}"#.utf8),
            "device/x": Array("{}".utf8),
        ]
        let restored = try RuntimeConditions.restore(records, configuredIDs: ["home"], kind: "thing", logger: Logger(label: "t")) { v in
            guard let id = v["id"]?.stringValue else { throw Unreadable() }
            return Condition(id: id)
        }
        #expect(restored.kept.map(\.id) == ["a", "b"])
        #expect(restored.deleted == ["condition/c", "condition/d", "condition/e", "condition/home"])
    }
}

import LocusConditions
import LocusCore
import Testing

/// The monitor region and beacon share (`ConditionMonitor`), on a kind with nothing of its own:
/// a switch each device turns on or off. What the monitor owns — the conditions held once, the
/// devices, put/remove reaching every device, the record queries and what changed — is pinned
/// here; what decides a side is each kind's and is tested with its service.
@Suite struct ConditionMonitorTests {
    struct Switch: MonitoredCondition, Equatable {
        var id: String
        var fingerprint: String
        var notifyOnEntry = true
        var notifyOnExit = true
        var dwell: Double? = nil
        var origin = ConditionOrigin.runtime
    }

    typealias Record = ConditionRecordingTests.Record

    struct Kind: ConditionKind {
        static let eventPrefix = "switch"
        var indexed: [String] = []
        mutating func put(_ condition: Switch, replacing old: Switch?) {
            if old == nil { indexed.append(condition.id) }
        }
        mutating func remove(_ condition: Switch) { indexed.removeAll { $0 == condition.id } }
    }

    /// Sparse records, as a region device per device: a switch never touched is implied.
    struct Device: ConditionDevice {
        typealias Kind = ConditionMonitorTests.Kind
        var records: [String: Record] = [:]
        var changed = Set<String>()

        init(monitoring conditions: [String: Switch], perDevice: Bool) {}
        func record(for condition: Switch) -> Record { records[condition.id] ?? Record(fingerprint: condition.fingerprint) }
        func forEachStoredRecord(_ body: (String, Record) -> Void) { for (id, r) in records { body(id, r) } }
        var storedRecordCount: Int { records.count }
        mutating func put(_ condition: Switch, replacing old: Switch?, assuming: ConditionState?, perDevice: Bool) {
            if let r = records[condition.id], r.fingerprint == condition.fingerprint, assuming == nil { return }
            var fresh = Record(fingerprint: condition.fingerprint)
            fresh.assume(assuming)
            records[condition.id] = fresh
            changed.insert(condition.id)
        }
        mutating func remove(_ id: String) {
            if records.removeValue(forKey: id) != nil { changed.insert(id) }
        }
        var hasChanges: Bool { !changed.isEmpty }
        mutating func takeChanges() -> [String] {
            defer { changed.removeAll() }
            return changed.sorted()
        }

        mutating func turn(_ id: String, on: Bool, at t: Int64, _ conditions: [String: Switch]) -> ConditionEventKind? {
            guard let c = conditions[id] else { return nil }
            var r = record(for: c)
            let kind = r.decide(on ? .satisfied : .unsatisfied, since: EventTime(milliseconds: t), at: EventTime(milliseconds: t),
                                notifyOnEntry: c.notifyOnEntry, notifyOnExit: c.notifyOnExit, prefix: Kind.eventPrefix)
            if r != record(for: c) {
                records[id] = r
                changed.insert(id)
            }
            return kind
        }
    }

    typealias Monitor = ConditionMonitor<Device>

    static func turn(_ m: inout Monitor, _ device: String, _ id: String, on: Bool, at t: Int64 = 1) -> ConditionEventKind? {
        m.withDevice(device) { d, conditions, _ in d.turn(id, on: on, at: t, conditions) }
    }

    @Test func oneDeviceIsThereFromTheStartAndSeesEveryCondition() {
        var m = Monitor(monitorID: "m", kind: Kind())
        #expect(m.hasDevice("") && m.deviceIDs == [] && m.deviceCount == 0)
        m.put(Switch(id: "b", fingerprint: "1"))
        m.put(Switch(id: "a", fingerprint: "1"), assuming: .satisfied)
        #expect(m.ids == ["a", "b"] && m.kind.indexed == ["b", "a"])
        #expect(m.record("a")?.state == .satisfied && m.record("a")?.assumed == true)
        #expect(m.takeChanges().map(\.device) == [""])
        #expect(m.takeChanges().isEmpty)
        #expect(Self.turn(&m, "", "b", on: true) == .enter)
        #expect(m.ids(satisfiedBy: "") == ["a", "b"])
        #expect(m.record("nothing") == nil)
    }

    @Test func perDeviceDevicesAppearWithTheirFirstInputAndShareTheConditions() {
        var m = Monitor(monitorID: "m", kind: Kind(), perDevice: true)
        m.put(Switch(id: "door", fingerprint: "1"))
        m.put(Switch(id: "gate", fingerprint: "1"))
        #expect(m.deviceIDs == [] && m.takeChanges().isEmpty)
        #expect(Self.turn(&m, "van2", "door", on: true) == .enter)
        #expect(Self.turn(&m, "van1", "door", on: true) == .enter)
        #expect(Self.turn(&m, "van1", "gate", on: false) == nil)
        #expect(m.deviceIDs == ["van1", "van2"])
        let changes = m.takeChanges()
        #expect(changes.map(\.device) == ["van1", "van2"])
        #expect(changes.map(\.changes) == [["door", "gate"], ["door"]])
        #expect(m.satisfiedCounts() == ["door": 2])
        #expect(m.ids(satisfiedBy: "van1") == ["door"])
        // A device not seen: the record it would start from.
        #expect(m.record("door", device: "van9")?.state == .unknown && !m.hasDevice("van9"))

        // A new definition with the same fingerprint keeps every device's record; another
        // fingerprint starts each device over, and the kind's index hears of both.
        m.put(Switch(id: "door", fingerprint: "1", notifyOnExit: false))
        #expect(m.takeChanges().isEmpty && m.satisfiedCounts() == ["door": 2])
        m.put(Switch(id: "door", fingerprint: "2"))
        #expect(m.takeChanges().map(\.device) == ["van1", "van2"])
        #expect(m.satisfiedCounts() == [:] && m.record("door", device: "van1")?.fingerprint == "2")
        #expect(m.kind.indexed == ["door", "gate"])

        // A removal reaches every device that had a record, and the index.
        #expect(Self.turn(&m, "van2", "gate", on: true) == .enter)
        _ = m.takeChanges()
        m.remove("gate")
        m.remove("gate")
        #expect(m.takeChanges().map(\.changes) == [["gate"], ["gate"]])
        #expect(m.ids == ["door"] && m.kind.indexed == ["door"] && m.satisfiedCounts() == [:])
        #expect(m.storedRecordCount(device: "van2") == 1)
    }
}

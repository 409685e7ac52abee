@testable import LocusRuntime
import Testing

/// Which journaled events the catch-up snapshot keeps, and under which key: one entry per
/// producer and condition (and per device, for a per-device service), the latest wins.
@Suite struct ConditionSnapshotKeyTests {
    static func key(_ topic: String, _ producer: String = "fences") -> String? {
        Array(topic.utf8).withUnsafeBytes { ConditionSnapshot.key(topic: $0, producer: producer) }
    }

    @Test func transitionsAndSnapshotsOfOneConditionShareAKey() {
        #expect(Self.key("region.enter.home") != nil)
        #expect(Self.key("region.enter.home") == Self.key("region.exit.home"))
        #expect(Self.key("region.exit.home") == Self.key("region.state.home"))
        #expect(Self.key("region.enter.home") != Self.key("region.enter.work"))
        #expect(Self.key("region.enter.home") != Self.key("region.enter.home", "other"))
        #expect(Self.key("beacon.enter.desk") == Self.key("beacon.state.desk"))
        #expect(Self.key("beacon.range.desk") == nil)
        #expect(Self.key("location.update.here") == nil)
    }

    /// Per device (`region.<kind>.<fence>.<device>`) each device and fence is its own entry:
    /// a van's state at the depot must not replace its state at the yard.
    @Test func perDeviceTopicsKeepOneEntryPerFenceAndDevice() {
        #expect(Self.key("region.enter.depot.van7") != Self.key("region.enter.yard.van7"))
        #expect(Self.key("region.enter.depot.van7") != Self.key("region.enter.depot.van8"))
        #expect(Self.key("region.enter.depot.van7") == Self.key("region.exit.depot.van7"))
    }

    /// Definitions (`publish_conditions`) are kept beside the states, never in their place.
    @Test func definitionsAreKeptApartFromStates() {
        #expect(Self.key("region.condition.home") != nil)
        #expect(Self.key("region.condition.home") != Self.key("region.state.home"))
        #expect(Self.key("region.condition.home") != Self.key("region.condition.work"))
    }
}

import Foundation
import LocusCore
@testable import LocusRuntime
import Logging
import Testing

/// Issue 49 item 8: failing state commits are said once per episode on `status.locus.state`
/// (when the first service's commit fails, and when every failing service commits again), not
/// once per failure; stores unavailable since boot make `degraded`.
@Suite struct StateStoreHealthTests {
    static func said(_ outlet: MemoryOutlet) -> [String] {
        outlet.take().map { m in
            let text = String(decoding: m.body, as: UTF8.self)
            return m.topic + ":" + (text.contains("\"state\":\"failed\"") ? "failed" : text.contains("\"state\":\"running\"") ? "running" : text)
        }
    }

    @Test func anEpisodeIsSaidOnceWhenItBeginsAndOnceWhenItEnds() {
        let outlet = MemoryOutlet()
        let health = StateStoreHealth(publisher: EventPublisher(producer: "locus", outlet: outlet), logger: Logger(label: "t"))
        health.commitSucceeded(plugin: "a")
        #expect(Self.said(outlet).isEmpty)
        health.commitFailed(plugin: "a", error: "disk full")
        health.commitFailed(plugin: "a", error: "disk full")
        health.commitFailed(plugin: "b", error: "disk full")
        #expect(Self.said(outlet) == ["status.locus.state:failed"])
        #expect(health.snapshot.failing == ["a": "disk full", "b": "disk full"])
        health.commitSucceeded(plugin: "a")
        #expect(Self.said(outlet).isEmpty, "b still fails")
        health.commitSucceeded(plugin: "b")
        health.commitSucceeded(plugin: "b")
        #expect(Self.said(outlet) == ["status.locus.state:running"])
        health.commitFailed(plugin: "b", error: "disk full")
        #expect(Self.said(outlet) == ["status.locus.state:failed"])
        #expect(health.snapshot.episodes == 2)
        #expect(health.snapshot.degraded == nil)
    }

    @Test func anUnwritableStateDirectoryAtBootIsDegraded() {
        let outlet = MemoryOutlet()
        let health = StateStoreHealth(publisher: EventPublisher(producer: "locus", outlet: outlet), logger: Logger(label: "t"))
        health.stateDirectoryUnavailable("/var/lib/locus", reason: "cannot write 16 KiB to it: No space left on device")
        #expect(health.directoryUnavailable)
        #expect(health.snapshot.degraded?.hasPrefix("state store unavailable: state directory /var/lib/locus: cannot write") == true)
        #expect(Self.said(outlet) == ["status.locus.state:failed"])
    }

    /// The probe finds a directory it cannot write (one that is not there stands in for a
    /// read-only or full one) and passes a writable one, leaving nothing behind.
    @Test func theProbeTellsAWritableDirectoryFromOneThatIsNot() throws {
        let dir = NSTemporaryDirectory() + "locus-probe-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(StateDirectoryProbe.problem(in: dir) == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
        #expect(StateDirectoryProbe.problem(in: dir + "/missing")?.contains("cannot create a file") == true)
    }
}

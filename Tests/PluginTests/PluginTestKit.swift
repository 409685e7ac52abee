import Foundation
import LocusCore
import Logging

/// In-memory harness for plugin tests: a context whose publisher records what is published.
struct PluginHarness {
    let outlet = MemoryOutlet()
    let statuses = StatusLog()
    let context: PluginContext

    init(id: String = "test") {
        let statuses = self.statuses
        context = PluginContext(id: id, logger: Logger(label: "test"), publisher: EventPublisher(producer: id, outlet: outlet)) { state, reason in
            statuses.append(state, reason)
        }
    }

    func published(registry: PayloadRegistry = .core) throws -> [BusMessage] {
        try outlet.take().map { BusMessage(topic: $0.topic, envelope: try EnvelopeCodec.decode($0.body, registry: registry), body: $0.body) }
    }
}

final class StatusLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [(PluginStatus.State, String?)] = []
    func append(_ s: PluginStatus.State, _ r: String?) { lock.lock(); entries.append((s, r)); lock.unlock() }
    var states: [PluginStatus.State] { lock.lock(); defer { lock.unlock() }; return entries.map(\.0) }
}

func fixMessage(source: String = "gps0", speed: Double?, at seconds: Double, seq: UInt64 = 1) -> BusMessage {
    let fix = Fix(source: source, mode: .threeD, latitude: 45.7, longitude: 14.36, speed: speed, horizontalAccuracy: 5)
    let time = EventTime(milliseconds: 1_700_000_000_000 + Int64(seconds * 1000))
    return BusMessage(topic: "obs.fix.\(source)", envelope: Envelope(producer: source, seq: seq, time: time, payload: fix))
}

func temporaryPath(_ name: String) -> String {
    let dir = NSTemporaryDirectory() + "locus-tests-\(UUID().uuidString)"
    try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir + "/" + name
}

import Foundation
import LocusCore
import Logging
import Testing


extension PluginHarness {
    /// Everything published so far, decoded.
    public func published(registry: PayloadRegistry = .core) throws -> [BusMessage] { try messages() }
}

/// An `obs.fix.<source>` message of a 3D fix at a fixed place, `seconds` after a fixed event-time origin.
public func fixMessage(source: String = "gps0", speed: Double?, at seconds: Double, seq: UInt64 = 1) -> BusMessage {
    let fix = Fix(source: source, mode: .threeD, latitude: 45.7, longitude: 14.36, speed: speed, horizontalAccuracy: 5)
    let time = EventTime(milliseconds: 1_700_000_000_000 + Int64(seconds * 1000))
    return BusMessage(topic: "obs.fix.\(source)", envelope: Envelope(producer: source, seq: seq, time: time, payload: fix))
}

/// `name` in a fresh directory of its own under the temporary directory.
public func temporaryPath(_ name: String) -> String {
    let dir = NSTemporaryDirectory() + "locus-tests-\(UUID().uuidString)"
    try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir + "/" + name
}

/// Each event as its topic, time and payload JSON: two runs emitted the same when these are equal.
public func wireForm(_ events: [ServiceOutput.Event]) -> [String] {
    events.map { e in
        var w = JSONWriter()
        e.payload.write(to: &w)
        return "\(e.topic) \(e.time.milliseconds) \(String(decoding: w.bytes, as: UTF8.self))"
    }
}

/// Feeds `messages` to a service from `make` twice, once as is and once restarted from its
/// committed state after every message (a fresh `make()` each time), and checks both emit the
/// same: the state holds everything the service remembers. Returns the restarted driver.
@discardableResult
public func expectSameEventsWhenRestarted<S: StatefulService>(_ make: @escaping () -> S, _ messages: [BusMessage],
                                                      sourceLocation: SourceLocation = #_sourceLocation) throws -> ServiceDriver<S> {
    var plain = ServiceDriver(make())
    try plain.send(messages)
    var restarted = ServiceDriver(make(), restartingWith: make)
    try restarted.send(messages)
    #expect(!plain.events.isEmpty, "a sequence that emits nothing shows nothing", sourceLocation: sourceLocation)
    #expect(wireForm(restarted.events) == wireForm(plain.events), sourceLocation: sourceLocation)
    #expect(restarted.restarts == messages.count, sourceLocation: sourceLocation)
    #expect(try restarted.committedState() != nil, sourceLocation: sourceLocation)
    return restarted
}

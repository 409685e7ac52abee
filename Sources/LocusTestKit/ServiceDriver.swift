import LocusCore

/// Feeds messages to a service the way the runtime does (one at a time, in order) and keeps
/// what it emits, so a service's tests read as "these fixes in, these events out".
///
/// It keeps the service's state as the runtime does (`ServiceStateTracker`): `committed` is
/// what the runtime's store would hold after the last message. Made with `restartingWith`, it
/// restarts the service after every message: a fresh instance from the closure, given the
/// committed state, as the daemon does after a `kill -9`. A `StatefulService` must give the
/// same events either way.
public struct ServiceDriver<Service: ServicePlugin> {
    public var service: Service
    /// Every event emitted so far, in order.
    public private(set) var events: [ServiceOutput.Event] = []
    /// The committed state records (key → encoded state), as the runtime's store would hold them.
    public private(set) var committed: [String: [UInt8]] = [:]
    /// How many times the service was restarted.
    public private(set) var restarts = 0
    private var tracker: ServiceStateTracker?
    private let rebuild: (() throws -> Service)?

    public init(_ service: Service) {
        self.service = service
        tracker = ServiceStateTracker(for: service)
        rebuild = nil
    }

    /// A driver that restarts the service from its committed state after every message, with
    /// a fresh instance from `rebuild` (made from the same configuration).
    public init(_ service: Service, restartingWith rebuild: @escaping () throws -> Service) {
        self.service = service
        tracker = ServiceStateTracker(for: service)
        self.rebuild = rebuild
    }


    /// Delivers `message` and returns the events it caused (rethrows what `receive` throws).
    @discardableResult
    public mutating func send(_ message: BusMessage) throws -> [ServiceOutput.Event] {
        var output = ServiceOutput()
        try service.receive(message, output: &output)
        events += output.events
        if tracker != nil {
            var any: any ServicePlugin = service
            for change in try tracker!.changes(in: &any) { committed[change.key] = change.value }
            service = any as! Service
            if let rebuild { try restart(rebuild()) }
        }
        return output.events
    }

    /// Replaces the service by `fresh` given the committed state, as the runtime does at a restart.
    public mutating func restart(_ fresh: Service) throws {
        var any: any ServicePlugin = fresh
        guard var t = ServiceStateTracker(for: any) else { service = fresh; return }
        try t.restore(committed, into: &any)
        service = any as! Service
        tracker = t
        restarts += 1
    }

    /// Delivers every message in order; returns the events they caused.
    @discardableResult
    public mutating func send(_ messages: [BusMessage]) throws -> [ServiceOutput.Event] {
        var caused: [ServiceOutput.Event] = []
        for message in messages { caused += try send(message) }
        return caused
    }

    /// The payloads of type `P` emitted so far.
    public func payloads<P: Payload>(_ type: P.Type) -> [P] { events.compactMap { $0.payload as? P } }
}

/// Messages as sources publish them, for service tests.
public enum TestMessages {
    /// Event time `seconds` after 2023-11-14T22:13:20Z (1,700,000,000 s).
    public static func time(_ seconds: Double) -> EventTime {
        EventTime(milliseconds: 1_700_000_000_000 + Int64((seconds * 1000).rounded()))
    }

    /// An `obs.fix.<source>` message: a 3D fix at `latitude`, `longitude` at `time(seconds)`.
    public static func fix(source: String = "gps0", latitude: Double, longitude: Double, horizontalAccuracy: Double? = 5,
                           speed: Double? = nil, at seconds: Double, seq: UInt64 = 1) -> BusMessage {
        let fix = Fix(source: source, mode: .threeD, latitude: latitude, longitude: longitude, speed: speed,
                      horizontalAccuracy: horizontalAccuracy)
        return BusMessage(topic: "obs.fix.\(source)", envelope: Envelope(producer: source, seq: seq, time: time(seconds), payload: fix))
    }
}

extension ServiceDriver where Service: StatefulService {
    /// The committed state decoded (nil before the state first changed).
    public func committedState() throws -> Service.State? {
        try committed[ServiceStateTracker.serviceKey].map { try ServiceStateCoding.decode(Service.State.self, from: $0) }
    }
}

import LocusCore

/// Feeds messages to a service the way the runtime does (one at a time, in order) and keeps
/// what it emits, so a service's tests read as "these fixes in, these events out".
public struct ServiceDriver<Service: ServicePlugin> {
    public var service: Service
    /// Every event emitted so far, in order.
    public private(set) var events: [ServiceOutput.Event] = []

    public init(_ service: Service) { self.service = service }

    /// Delivers `message` and returns the events it caused (rethrows what `receive` throws).
    @discardableResult
    public mutating func send(_ message: BusMessage) throws -> [ServiceOutput.Event] {
        var output = ServiceOutput()
        try service.receive(message, output: &output)
        events += output.events
        return output.events
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

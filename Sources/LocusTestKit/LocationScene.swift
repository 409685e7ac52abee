import Foundation
import LocusCore

/// Messages and a runner for the location services' tests: fixes placed in metres from a base
/// point (through the real geodesic, so distances in the tests are true distances), ticks and
/// plugin statuses, all at seconds after a fixed event-time origin.
public enum LocationScene {
    /// Lake Cerknica, where the demo recording was made.
    public static let base = Coordinate(latitude: 45.77, longitude: 14.36)
    public static let origin: Int64 = 1_700_000_000_000

    public static func time(_ seconds: Double) -> EventTime { EventTime(milliseconds: origin + Int64((seconds * 1000).rounded())) }

    public static func seconds(_ t: EventTime) -> Double { Double(t.milliseconds - origin) / 1000 }

    /// The point `north` metres north and then `east` metres east of `base`.
    public static func place(north: Double = 0, east: Double = 0) -> Coordinate {
        var p = base
        if north != 0 { p = Geodesic.destination(from: p, bearing: north > 0 ? 0 : 180, distance: abs(north)) }
        if east != 0 { p = Geodesic.destination(from: p, bearing: east > 0 ? 90 : 270, distance: abs(east)) }
        return p
    }

    public static func fix(_ source: String = "gps0", at seconds: Double, north: Double = 0, east: Double = 0,
                    accuracy: Double? = 5, mode: Fix.Mode = .threeD) -> BusMessage {
        let p = place(north: north, east: east)
        let f = Fix(source: source, mode: mode, latitude: mode == .none ? nil : p.latitude,
                    longitude: mode == .none ? nil : p.longitude, altitudeMSL: mode == .threeD ? 550 : nil,
                    horizontalAccuracy: accuracy)
        return message(f, topic: "obs.fix.\(source)", producer: source, at: time(seconds))
    }

    public static func message<P: Payload>(_ payload: P, topic: String, producer: String, at time: EventTime) -> BusMessage {
        BusMessage(topic: topic, envelope: Envelope(producer: producer, seq: 1, time: time, payload: payload))
    }

    public static func tick(at seconds: Double) -> BusMessage {
        message(ClockTick(basis: .recorded, interval: 1), topic: "clock.tick", producer: "clock", at: time(seconds))
    }

    /// Ticks at every whole second from `from` to `to`, inclusive.
    public static func ticks(_ from: Int, _ to: Int) -> [BusMessage] { (from...to).map { tick(at: Double($0)) } }

    /// A `status.<plugin>` message. Its time is the wall clock (as the runtime stamps it), years
    /// away from the scene's event time: services must not take it for "now".
    public static func status(_ plugin: String, _ state: PluginStatus.State, reason: String? = nil) -> BusMessage {
        message(PluginStatus(plugin: plugin, kind: "source", pluginType: "nmea-serial", state: state, reason: reason),
                topic: "status.\(plugin)", producer: "locus", at: EventTime(milliseconds: 2_000_000_000_000))
    }
}

/// One event a service emitted, with its time in seconds after `LocationScene.origin`.
public struct EmittedEvent {
    public var topic: String
    public var seconds: Double
    public var payload: any Payload

    public func payload<P: Payload>(_ type: P.Type) -> P? { payload as? P }
}

/// Feeds messages to a service the way the runtime does (only those matching its
/// subscriptions, in order) and collects what it emits.
public struct ServiceRun<S: ServicePlugin> {
    public var service: S
    public private(set) var events: [EmittedEvent] = []

    public init(_ service: S) { self.service = service }

    public mutating func feed(_ messages: [BusMessage]) throws {
        for m in messages where service.subscriptions.contains(where: { m.topic.hasPrefix($0) }) {
            var output = ServiceOutput()
            try service.receive(m, output: &output)
            events += output.events.map { EmittedEvent(topic: $0.topic, seconds: LocationScene.seconds($0.time), payload: $0.payload) }
        }
    }

    public mutating func feed(_ messages: BusMessage...) throws { try feed(messages) }

    public mutating func collect(_ output: ServiceOutput) {
        events += output.events.map { EmittedEvent(topic: $0.topic, seconds: LocationScene.seconds($0.time), payload: $0.payload) }
    }

    /// The events of payload type `P`, with their times.
    public func all<P: Payload>(_ type: P.Type) -> [(seconds: Double, event: P)] {
        events.compactMap { e in e.payload(P.self).map { (e.seconds, $0) } }
    }
}

extension ServiceRun where S: FileFedService {
    /// Reads the service's files and hands them over, as the runtime does at build.
    public mutating func loadFiles() throws { try ServiceFiles.load(&service) }

    /// Hands the files over as they are now, as the runtime's watch does after a change.
    public mutating func deliverFiles() throws {
        var output = ServiceOutput()
        try ServiceFiles.deliver(&service, output: &output)
        collect(output)
    }
}

/// Messages merged in time order; at equal times fixes come before ticks, as a replay delivers them.
public func timeline(_ parts: [BusMessage]...) -> [BusMessage] {
    parts.flatMap { $0 }.enumerated().sorted { a, b in
        let (ta, tb) = (a.element.time, b.element.time)
        if ta != tb { return ta < tb }
        let (ka, kb) = (a.element.topic == "clock.tick" ? 1 : 0, b.element.topic == "clock.tick" ? 1 : 0)
        return ka != kb ? ka < kb : a.offset < b.offset
    }.map(\.element)
}

/// Decodes a plugin configuration from JSON, as the runtime decodes it from YAML.
public func decodeConfiguration<C: Decodable>(_ type: C.Type, _ json: String) throws -> C {
    try JSONDecoder().decode(C.self, from: Data(json.utf8))
}

/// The key of the `ConfigValueError` that decoding `json` throws (the container of an
/// `UnknownConfigKeyError`), or nil if it decodes.
public func configErrorKey<C: Decodable>(_ type: C.Type, _ json: String) -> String? {
    do {
        _ = try decodeConfiguration(C.self, json)
        return nil
    } catch let e as ConfigValueError {
        return e.key
    } catch let e as UnknownConfigKeyError {
        return e.container
    } catch {
        return "not a ConfigValueError: \(error)"
    }
}

/// The runtime's store of a service's state, for service tests: what `ServiceStateTracker`
/// commits after each batch, and a fresh instance given it back, as after a `kill -9`.
public struct CommittedState {
    public private(set) var records: [String: [UInt8]] = [:]
    private var tracker: ServiceStateTracker?

    public init() {}

    /// Commits what `run`'s service changed since the last commit.
    public mutating func commit<S: ServicePlugin>(_ run: inout ServiceRun<S>) throws {
        if tracker == nil { tracker = ServiceStateTracker(for: run.service) }
        guard tracker != nil else { return }
        var any: any ServicePlugin = run.service
        for change in try tracker!.changes(in: &any) { records[change.key] = change.value }
        run.service = any as! S
    }

    /// Feeds `messages` one by one, committing after each (a batch of one, as the runtime may take).
    public mutating func feed<S: ServicePlugin>(_ run: inout ServiceRun<S>, _ messages: [BusMessage]) throws {
        for m in messages {
            try run.feed(m)
            try commit(&run)
        }
    }

    /// `service` as the runtime starts it the first time: the tracker is made before its first
    /// message, so that message's changes are committed.
    public mutating func start<S: ServicePlugin>(_ service: S) throws -> ServiceRun<S> { try restart(service) }

    /// `fresh`, given the committed state.
    public mutating func restart<S: ServicePlugin>(_ fresh: S) throws -> ServiceRun<S> {
        var any: any ServicePlugin = fresh
        tracker = ServiceStateTracker(for: any)
        try tracker?.restore(records, into: &any)
        return ServiceRun(any as! S)
    }

    /// The committed record `key`, as text.
    public func text(_ key: String) -> String? { records[key].map { String(decoding: $0, as: UTF8.self) } }
}

import LocusCore

/// A position read from an MQTT message: an OwnTracks `location` (from a phone), or a Locus
/// `location.update` / `obs.fix` envelope (from another Locus instance's `mqtt` sink).
public struct IncomingLocation: Equatable, Sendable {
    public var time: EventTime
    public var latitude: Double
    public var longitude: Double
    public var altitude: Double?
    public var horizontalAccuracy: Double?
    public var verticalAccuracy: Double?
    /// m/s
    public var speed: Double?
    public var course: Double?

    /// Why a message gave no position. `ignored` is a valid message of another kind (an
    /// OwnTracks transition, card or lwt; a Locus event that is not a location): skipped, not
    /// an error. The others are malformed messages, counted by reason.
    public enum Problem: String, Error, CaseIterable, Sendable {
        case tooLarge = "too_large"
        case notJSON = "not_json"
        case ignored
        case missingField = "missing_field"
        case wrongType = "wrong_type"
        case outOfRange = "out_of_range"
    }

    /// Ranges a position's fields must be in (the sink's OwnTracks form writes only these, so
    /// what one Locus sends another reads).
    static let altitudeRange: ClosedRange<Double> = -100_000...1_000_000
    static let accuracyRange: ClosedRange<Double> = 0...1e7
    static let speedRange: ClosedRange<Double> = 0...1e5

    /// The largest message read; OwnTracks locations are a few hundred bytes.
    public static let maxBytes = 65_536

    /// Reads `bytes` as `format` says. Never traps, whatever the bytes.
    public static func read(_ bytes: UnsafeRawBufferPointer, format: MQTTSourceConfiguration.Format) -> Result<IncomingLocation, Problem> {
        guard bytes.count <= maxBytes else { return .failure(.tooLarge) }
        guard let json = bytes.withMemoryRebound(to: UInt8.self, { buffer -> JSONValue? in
            guard UTF8Check.firstInvalid(buffer) == nil else { return nil }
            return try? JSONValue.read(buffer)
        }) else { return .failure(.notJSON) }
        switch format {
        case .owntracks: return ownTracks(json)
        case .locus: return locus(json)
        }
    }

    private static func ownTracks(_ m: JSONValue) -> Result<IncomingLocation, Problem> {
        guard case .object = m else { return .failure(.wrongType) }
        guard let type = m["_type"] else { return .failure(.missingField) }
        guard let typeName = type.stringValue else { return .failure(.wrongType) }
        guard typeName == "location" else { return .failure(.ignored) }
        guard let latValue = m["lat"], let lonValue = m["lon"], let tstValue = m["tst"] else { return .failure(.missingField) }
        guard let lat = latValue.doubleValue, let lon = lonValue.doubleValue, let tst = tstValue.doubleValue else { return .failure(.wrongType) }
        var fields: [Double?] = []
        for key in ["alt", "acc", "vac", "vel", "cog"] {
            guard let v = m[key] else { fields.append(nil); continue }
            guard let d = v.doubleValue else { return .failure(.wrongType) }
            // Phones and trackers send -1 for "not known" (iOS's invalid accuracy, speed and
            // course; trackers' acc -1): the field is absent, the position still good.
            fields.append(key != "alt" && d < 0 ? nil : d)
        }
        guard let time = EventTime(checkedSeconds: tst.rounded(.down)), tst >= 0 else { return .failure(.outOfRange) }
        return checked(IncomingLocation(time: time, latitude: lat, longitude: lon, altitude: fields[0], horizontalAccuracy: fields[1],
                                        verticalAccuracy: fields[2], speed: fields[3].map { $0 / 3.6 }, course: fields[4]))
    }

    private static func locus(_ envelope: JSONValue) -> Result<IncomingLocation, Problem> {
        guard case .object = envelope else { return .failure(.wrongType) }
        guard let type = envelope["type"]?.stringValue, let timeText = envelope["time"]?.stringValue, let p = envelope["payload"] else {
            return .failure(.missingField)
        }
        guard type == "location.update" || type == "obs.fix" else { return .failure(.ignored) }
        guard let time = EventTime(iso8601: timeText) else { return .failure(.wrongType) }
        guard case .object = p else { return .failure(.wrongType) }
        // An obs.fix without a position (mode none) is a valid report of no fix: nothing to forward.
        guard let latValue = p["lat"], let lonValue = p["lon"] else { return type == "obs.fix" ? .failure(.ignored) : .failure(.missingField) }
        guard let lat = latValue.doubleValue, let lon = lonValue.doubleValue else { return .failure(.wrongType) }
        var fields: [Double?] = []
        for key in ["alt_msl", "h_accuracy", "v_accuracy", "speed", "course"] {
            guard let v = p[key] else { fields.append(nil); continue }
            guard let d = v.doubleValue else { return .failure(.wrongType) }
            fields.append(d)
        }
        return checked(IncomingLocation(time: time, latitude: lat, longitude: lon, altitude: fields[0], horizontalAccuracy: fields[1],
                                        verticalAccuracy: fields[2], speed: fields[3], course: fields[4]))
    }

    /// Ranges the bus's `obs.fix` schema allows (docs/protocol.md 5.1); anything else is refused
    /// here rather than by the hub.
    private static func checked(_ l: IncomingLocation) -> Result<IncomingLocation, Problem> {
        func ok(_ v: Double?, _ range: ClosedRange<Double>) -> Bool { v.map { $0.isFinite && range.contains($0) } ?? true }
        guard ok(l.latitude, -90...90), ok(l.longitude, -180...180), ok(l.altitude, altitudeRange),
              ok(l.horizontalAccuracy, accuracyRange), ok(l.verticalAccuracy, accuracyRange), ok(l.speed, speedRange),
              ok(l.course, 0...360), l.time.milliseconds > 0 else { return .failure(.outOfRange) }
        return .success(l)
    }

    /// The `obs.fix` this location is published as.
    public func fix(source: String) -> Fix {
        Fix(source: source, mode: altitude == nil ? .twoD : .threeD, latitude: latitude, longitude: longitude,
            altitudeMSL: altitude, speed: speed, course: course.map { $0 >= 360 ? 0 : $0 },
            horizontalAccuracy: horizontalAccuracy, verticalAccuracy: verticalAccuracy)
    }
}

import LocusCore

/// A position read from a message of a broker or stream (the `mqtt` and `nats` sources): an
/// OwnTracks `location` (from a phone), or a Locus `location.update` / `obs.fix` envelope (from
/// another Locus instance's sink).
public struct IncomingLocation: Equatable, Sendable {
    /// How messages are read.
    public enum Format: String, Sendable, Equatable, CaseIterable, SettingValue {
        /// OwnTracks JSON (`_type: location`), from phones.
        case owntracks
        /// Locus envelopes (`location.update`, `obs.fix`), from other Locus instances' sinks.
        case locus
    }

    public var time: EventTime
    public var latitude: Double
    public var longitude: Double
    public var altitude: Double?
    public var horizontalAccuracy: Double?
    public var verticalAccuracy: Double?
    /// m/s
    public var speed: Double?
    public var course: Double?

    public init(time: EventTime, latitude: Double, longitude: Double, altitude: Double?, horizontalAccuracy: Double?,
                verticalAccuracy: Double?, speed: Double?, course: Double?) {
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.speed = speed
        self.course = course
    }

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
    public static let altitudeRange: ClosedRange<Double> = -100_000...1_000_000
    public static let accuracyRange: ClosedRange<Double> = 0...1e7
    public static let speedRange: ClosedRange<Double> = 0...1e5

    /// The largest message read; OwnTracks locations are a few hundred bytes.
    public static let maxBytes = 65_536

    /// Reads `bytes` as `format` says. Never traps, whatever the bytes.
    public static func read(_ bytes: UnsafeRawBufferPointer, format: Format) -> Result<IncomingLocation, Problem> {
        guard bytes.count <= maxBytes else { return .failure(.tooLarge) }
        if format == .owntracks {
            return bytes.withMemoryRebound(to: UInt8.self) { buffer in
                guard UTF8Check.firstInvalid(buffer) == nil else { return .failure(.notJSON) }
                guard let fields = try? OwnTracksFields.read(buffer) else { return .failure(.notJSON) }
                return ownTracks(fields)
            }
        }
        guard let json = bytes.withMemoryRebound(to: UInt8.self, { buffer -> JSONValue? in
            guard UTF8Check.firstInvalid(buffer) == nil else { return nil }
            return try? JSONValue.read(buffer)
        }) else { return .failure(.notJSON) }
        return locus(json)
    }

    /// The members of an OwnTracks message the source uses, read in one pass without building a
    /// `JSONValue` (a fleet server reads one per fix; building the dictionary was 4 % of its
    /// CPU). The rest of the document is checked as JSON and skipped. A key given twice: the
    /// first wins, as in `JSONValue.read`.
    struct OwnTracksFields {
        enum Member: Equatable { case absent, number(Double), string(String), other }
        var isObject = false
        var type = Member.absent
        /// lat, lon, tst, then the optional alt, acc, vac, vel, cog.
        var values = [Member](repeating: .absent, count: 8)

        static func read(_ buffer: UnsafeBufferPointer<UInt8>) throws -> OwnTracksFields {
            try JSONReader.read(buffer) { r in
                var f = OwnTracksFields()
                guard try r.nextKind() == .object else {
                    try r.skipValue()
                    return f
                }
                f.isObject = true
                try r.readObject { r, key in
                    if key == "_type" {
                        guard f.type == .absent else { return try r.skipValue() }
                        f.type = try r.nextKind() == .string ? .string(try r.readString()) : try skipped(&r)
                        return
                    }
                    let index: Int? = key == "lat" ? 0 : key == "lon" ? 1 : key == "tst" ? 2 : key == "alt" ? 3
                        : key == "acc" ? 4 : key == "vac" ? 5 : key == "vel" ? 6 : key == "cog" ? 7 : nil
                    guard let index, f.values[index] == .absent else { return try r.skipValue() }
                    f.values[index] = try r.nextKind() == .number ? .number(try r.readDouble()) : try skipped(&r)
                }
                return f
            }
        }

        private static func skipped(_ r: inout JSONReader) throws -> Member {
            try r.skipValue()
            return .other
        }
    }

    private static func ownTracks(_ m: OwnTracksFields) -> Result<IncomingLocation, Problem> {
        guard m.isObject else { return .failure(.wrongType) }
        guard m.type != .absent else { return .failure(.missingField) }
        guard case .string(let typeName) = m.type else { return .failure(.wrongType) }
        guard typeName == "location" else { return .failure(.ignored) }
        guard m.values[0] != .absent, m.values[1] != .absent, m.values[2] != .absent else { return .failure(.missingField) }
        guard case .number(let lat) = m.values[0], case .number(let lon) = m.values[1], case .number(let tst) = m.values[2] else {
            return .failure(.wrongType)
        }
        var fields: [Double?] = []
        for index in 3..<8 {
            switch m.values[index] {
            case .absent: fields.append(nil)
            // Phones and trackers send -1 for "not known" (iOS's invalid accuracy, speed and
            // course; trackers' acc -1): the field is absent, the position still good.
            case .number(let d): fields.append(index != 3 && d < 0 ? nil : d)
            case .string, .other: return .failure(.wrongType)
            }
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

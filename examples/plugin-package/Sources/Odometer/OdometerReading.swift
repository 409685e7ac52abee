import LocusCore

/// The event the odometer publishes (`example.odometer`, topic `example.odometer.<service-id>`):
/// a fix source has travelled another `every` metres.
public struct OdometerReading: Payload, Equatable {
    public static let eventType = "example.odometer"
    public static let schemaVersion = 1

    /// The fix source that moved.
    public var source: String
    /// Metres travelled by that source since the service started, counted along its fixes.
    public var distance: Double
    /// Fixes that counted towards `distance`.
    public var fixes: Int

    public init(source: String, distance: Double, fixes: Int) {
        self.source = source
        self.distance = distance
        self.fixes = fixes
    }

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key("source"); w.string(source)
        w.key("distance"); w.double(distance, fractionDigits: 1)
        w.key("fixes"); w.int(fixes)
        w.endObject()
    }

    public init(from r: inout JSONReader) throws {
        var source: String?, distance: Double?, fixes: Int?
        try r.readObject { r, k in
            if k == "source" { source = try r.readString() }
            else if k == "distance" { distance = try r.readDouble() }
            else if k == "fixes" { fixes = try r.readInt() }
            else { try r.skipValue() }
        }
        guard let source, let distance, let fixes else { throw r.error("odometer needs source, distance, fixes") }
        self.init(source: source, distance: distance, fixes: fixes)
    }
}

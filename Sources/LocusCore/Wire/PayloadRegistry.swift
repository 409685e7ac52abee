/// Maps event types to the payload types that decode them.
///
/// The runtime builds one from `PayloadRegistry.core` plus every plugin's `payloadTypes`;
/// the hub refuses messages whose type is in none of them.
public struct PayloadRegistry: Sendable {
    public typealias Decoder = @Sendable (inout JSONReader) throws -> any Payload
    private var decoders: [String: Decoder] = [:]
    public private(set) var versions: [String: Int] = [:]

    public init() {}

    public init(_ types: [any Payload.Type]) {
        for t in types { register(t) }
    }

    public mutating func register(_ type: any Payload.Type) {
        decoders[type.eventType] = { r in try type.init(from: &r) }
        versions[type.eventType] = type.schemaVersion
    }

    /// Declares a type that is accepted on the bus but kept raw (external plugins' own events).
    public mutating func registerRaw(eventType: String, version: Int = 1) {
        versions[eventType] = version
    }

    public func decoder(for eventType: String) -> Decoder? { decoders[eventType] }

    public func knows(_ eventType: String) -> Bool { versions[eventType] != nil }

    public var eventTypes: [String] { versions.keys.sorted() }

    public func merging(_ other: PayloadRegistry) -> PayloadRegistry {
        var r = self
        r.decoders.merge(other.decoders) { a, _ in a }
        r.versions.merge(other.versions) { a, _ in a }
        return r
    }

    /// The event types defined by Locus itself.
    public static let core = PayloadRegistry([Fix.self, SkyView.self, NMEASentence.self, BLEAdvertisement.self, ClockTick.self, PluginStatus.self, DropReport.self])
}

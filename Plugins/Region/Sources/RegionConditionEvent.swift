import LocusConditions
import LocusCore

/// A condition's definition on the bus (`region.condition.<id>`), with `publish_conditions`:
/// one per condition when the service starts, and again whenever one is added, replaced or
/// removed (`removed: true`, with no definition). What a map or an OwnTracks consumer needs to
/// draw or import the fences (the `mqtt` sink turns circles into OwnTracks `waypoint` messages);
/// state is in `region.state` and the transitions.
public struct RegionConditionEvent: Payload, Equatable {
    public static var eventType: String { "region.condition" }
    public static var schemaVersion: Int { 1 }
    public static let topicPrefix = "region.condition."

    /// The condition's id (the topic's last segment).
    public var region: String
    /// The region service instance that monitors it.
    public var monitor: String
    /// The definition, or nil when the condition was removed.
    public var condition: RegionCondition?

    public init(region: String, monitor: String, condition: RegionCondition?) {
        self.region = region
        self.monitor = monitor
        self.condition = condition
    }

    /// The event its fields describe (the `build` of schemas/region.condition.schema.json, for
    /// tools/payloadgen.py): a definition is read as the config reads one, so what the config
    /// refuses does not decode either.
    static func fromWire(region: String, monitor: String, removed: Bool, origin: String?, geometry: JSONValue?, radius: Double?,
                         notifyOnEntry: Bool?, notifyOnExit: Bool?, dwell: Double?, properties: [String: JSONValue]?,
                         reader r: JSONReader) throws -> RegionConditionEvent {
        guard !removed else { return RegionConditionEvent(region: region, monitor: monitor, condition: nil) }
        var definition: [String: JSONValue] = ["id": .string(region)]
        if let geometry { definition["geometry"] = geometry }
        if let radius { definition["radius"] = .number(radius) }
        if let notifyOnEntry { definition["notify_on_entry"] = .bool(notifyOnEntry) }
        if let notifyOnExit { definition["notify_on_exit"] = .bool(notifyOnExit) }
        if let dwell { definition["dwell"] = .number(dwell) }
        if let properties { definition["properties"] = .object(properties) }
        do {
            let condition = try RegionCondition(definition: .object(definition),
                                                origin: origin.flatMap(ConditionOrigin.init(rawValue:)) ?? .config)
            return RegionConditionEvent(region: region, monitor: monitor, condition: condition)
        } catch {
            throw r.error("region.condition \(region): \(error)")
        }
    }
}

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

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key("region"); w.string(region)
        w.key("monitor"); w.string(monitor)
        w.key("removed"); w.bool(condition == nil)
        if let c = condition {
            w.key("origin"); w.string(c.origin.rawValue)
            w.key("geometry"); w.rawValue(c.geometry.encoded())
            w.field("radius", c.radius, fractionDigits: 3)
            w.key("notify_on_entry"); w.bool(c.notifyOnEntry)
            w.key("notify_on_exit"); w.bool(c.notifyOnExit)
            w.field("dwell", c.dwell, fractionDigits: 3)
            w.key("properties"); w.rawValue(JSONValue.object(c.properties).encoded())
        }
        w.endObject()
    }

    public init(from r: inout JSONReader) throws {
        let raw = Array(try r.readRawValue())
        guard case .object(var o) = try JSONValue.decode(raw) else { throw r.error("a region.condition payload must be an object") }
        guard let region = o.removeValue(forKey: "region")?.stringValue, let monitor = o.removeValue(forKey: "monitor")?.stringValue,
              case .bool(let removed)? = o.removeValue(forKey: "removed") else {
            throw r.error("a region.condition needs region, monitor and removed")
        }
        self.region = region
        self.monitor = monitor
        guard !removed else {
            condition = nil
            return
        }
        let origin = o.removeValue(forKey: "origin")?.stringValue.flatMap(ConditionOrigin.init(rawValue:)) ?? .config
        o["id"] = .string(region)
        do {
            condition = try RegionCondition(definition: .object(o), origin: origin)
        } catch {
            throw r.error("region.condition \(region): \(error)")
        }
    }
}

import LocusCore

/// What `/state` and `/regions.geojson` serve, kept from the events the gateway takes: each
/// region's definition (`region.condition`) and state per device, each beacon condition's state
/// and last ranging, the last location per source, and recent visits.
struct WebState {
    /// The last event of one kind for one thing.
    struct Last {
        var topic: String
        var envelope: JSONValue
    }

    struct RegionRow {
        var monitor: String
        var region: String
        var device: String?
        var state: String
        var last: Last
    }

    /// `monitor\0region` → the `region.condition` payload.
    private(set) var definitions: [String: JSONValue] = [:]
    /// `monitor\0region\0device` → state and last event.
    private(set) var regions: [String: RegionRow] = [:]
    /// `monitor\0beacon` → last enter/exit/state, and last range.
    private var beacons: [String: Last] = [:]
    private var ranges: [String: Last] = [:]
    /// Source → last location; sources seen in `location.update` ignore later `obs.fix`.
    private var locations: [String: Last] = [:]
    private var updatedSources: Set<String> = []
    /// Recent visits, oldest first, one per source and arrival.
    private var visits: [(key: String, last: Last)] = []
    static let visitLimit = 500

    mutating func apply(_ item: FeedItem) {
        let t = item.topic
        guard t.hasPrefix("region.") || t.hasPrefix("beacon.") || t.hasPrefix("location.update.")
            || t.hasPrefix("obs.fix.") || t.hasPrefix("visit.") else { return }
        guard let envelope = (try? JSONValue.read(item.json))?["envelope"], let type = envelope["type"]?.stringValue,
              let payload = envelope["payload"] else { return }
        let last = Last(topic: t, envelope: envelope)
        switch type {
        case "region.condition":
            guard let monitor = payload["monitor"]?.stringValue, let region = payload["region"]?.stringValue else { return }
            if payload["removed"] == .bool(true) {
                definitions[monitor + "\u{0}" + region] = nil
                regions = regions.filter { !($0.value.monitor == monitor && $0.value.region == region) }
            } else {
                definitions[monitor + "\u{0}" + region] = payload
            }
        case "region.enter", "region.exit", "region.dwell", "region.state":
            guard let monitor = payload["monitor"]?.stringValue, let region = payload["region"]?.stringValue,
                  let state = payload["state"]?.stringValue else { return }
            let device = payload["device"]?.stringValue
            regions[monitor + "\u{0}" + region + "\u{0}" + (device ?? "")] =
                RegionRow(monitor: monitor, region: region, device: device, state: state, last: last)
        case "beacon.enter", "beacon.exit", "beacon.state":
            guard let monitor = payload["monitor"]?.stringValue, let beacon = payload["beacon"]?.stringValue else { return }
            beacons[monitor + "\u{0}" + beacon] = last
        case "beacon.range":
            guard let monitor = payload["monitor"]?.stringValue, let beacon = payload["beacon"]?.stringValue else { return }
            ranges[monitor + "\u{0}" + beacon] = last
        case "location.update", "obs.fix":
            guard let source = payload["source"]?.stringValue, payload["lat"]?.doubleValue != nil else { return }
            if type == "location.update" { updatedSources.insert(source) } else if updatedSources.contains(source) { return }
            locations[source] = last
        case "visit.arrival", "visit.departure":
            let key = (payload["source"]?.stringValue ?? "") + "\u{0}" + (payload["arrival"]?.stringValue ?? "")
            if let i = visits.lastIndex(where: { $0.key == key }) { visits.remove(at: i) }
            visits.append((key, last))
            if visits.count > Self.visitLimit { visits.removeFirst(visits.count - Self.visitLimit) }
        default:
            return
        }
    }

    private static func write(_ last: Last?, to w: inout JSONWriter) {
        guard let last else { w.null(); return }
        w.beginObject()
        w.key("topic"); w.string(last.topic)
        w.key("type"); w.string(last.envelope["type"]?.stringValue ?? "")
        w.key("time"); w.string(last.envelope["time"]?.stringValue ?? "")
        w.key("producer"); w.string(last.envelope["producer"]?.stringValue ?? "")
        w.key("payload"); w.rawValue((last.envelope["payload"] ?? .null).encoded())
        w.endObject()
    }

    /// A definition without the fields the row already has.
    private static func definition(_ payload: JSONValue?) -> JSONValue {
        guard case .object(var o)? = payload else { return .null }
        for k in ["region", "monitor", "removed"] { o[k] = nil }
        return .object(o)
    }

    func json() -> [UInt8] {
        var w = JSONWriter(capacity: 4096)
        w.beginObject()
        w.key("regions"); w.beginArray()
        var withState = Set<String>()
        for key in regions.keys.sorted() {
            let r = regions[key]!
            let defKey = r.monitor + "\u{0}" + r.region
            withState.insert(defKey)
            w.beginObject()
            w.key("monitor"); w.string(r.monitor)
            w.key("region"); w.string(r.region)
            if let d = r.device { w.key("device"); w.string(d) }
            w.key("state"); w.string(r.state)
            w.key("definition"); w.rawValue(Self.definition(definitions[defKey]).encoded())
            w.key("last_event"); Self.write(r.last, to: &w)
            w.endObject()
        }
        for key in definitions.keys.sorted() where !withState.contains(key) {
            let parts = key.split(separator: "\u{0}", omittingEmptySubsequences: false)
            w.beginObject()
            w.key("monitor"); w.string(String(parts[0]))
            w.key("region"); w.string(String(parts[1]))
            w.key("state"); w.string("unknown")
            w.key("definition"); w.rawValue(Self.definition(definitions[key]).encoded())
            w.key("last_event"); w.null()
            w.endObject()
        }
        w.endArray()
        w.key("beacons"); w.beginArray()
        for key in Set(beacons.keys).union(ranges.keys).sorted() {
            let parts = key.split(separator: "\u{0}", omittingEmptySubsequences: false)
            w.beginObject()
            w.key("monitor"); w.string(String(parts[0]))
            w.key("beacon"); w.string(String(parts[1]))
            w.key("state"); w.string(beacons[key]?.envelope["payload"]?["state"]?.stringValue ?? "unknown")
            w.key("last_event"); Self.write(beacons[key], to: &w)
            w.key("range"); Self.write(ranges[key], to: &w)
            w.endObject()
        }
        w.endArray()
        w.key("locations"); w.beginArray()
        for source in locations.keys.sorted() {
            let l = locations[source]!
            w.beginObject()
            w.key("source"); w.string(source)
            w.key("topic"); w.string(l.topic)
            w.key("time"); w.string(l.envelope["time"]?.stringValue ?? "")
            w.key("payload"); w.rawValue((l.envelope["payload"] ?? .null).encoded())
            w.endObject()
        }
        w.endArray()
        w.key("visits"); w.beginArray()
        for v in visits {
            w.beginObject()
            w.key("topic"); w.string(v.last.topic)
            w.key("type"); w.string(v.last.envelope["type"]?.stringValue ?? "")
            w.key("time"); w.string(v.last.envelope["time"]?.stringValue ?? "")
            w.key("payload"); w.rawValue((v.last.envelope["payload"] ?? .null).encoded())
            w.endObject()
        }
        w.endArray()
        w.endObject()
        return w.bytes
    }

    /// The fences as a GeoJSON FeatureCollection: each feature's geometry as defined (a circle
    /// is its centre `Point` with `radius` in metres among the properties), its state (per
    /// device: satisfied if any device is inside) and its user properties.
    func geoJSON() -> [UInt8] {
        var states: [String: [String]] = [:]
        for r in regions.values { states[r.monitor + "\u{0}" + r.region, default: []].append(r.state) }
        var w = JSONWriter(capacity: 4096)
        w.beginObject()
        w.key("type"); w.string("FeatureCollection")
        w.key("features"); w.beginArray()
        for key in definitions.keys.sorted() {
            let d = definitions[key]!
            let parts = key.split(separator: "\u{0}", omittingEmptySubsequences: false)
            let s = states[key] ?? []
            let state = s.contains("satisfied") ? "satisfied" : s.contains("unsatisfied") ? "unsatisfied" : "unknown"
            w.beginObject()
            w.key("type"); w.string("Feature")
            w.key("id"); w.string(parts[0] + "/" + parts[1])
            w.key("geometry"); w.rawValue((d["geometry"] ?? .null).encoded())
            w.key("properties"); w.beginObject()
            w.key("monitor"); w.string(String(parts[0]))
            w.key("region"); w.string(String(parts[1]))
            w.key("state"); w.string(state)
            if let r = d["radius"]?.doubleValue { w.key("radius"); w.double(r, fractionDigits: 3) }
            w.key("properties"); w.rawValue((d["properties"] ?? .object([:])).encoded())
            w.endObject()
            w.endObject()
        }
        w.endArray()
        w.endObject()
        return w.bytes
    }
}

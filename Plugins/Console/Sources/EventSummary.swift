import LocusCore

/// One readable line per event: time, topic, producer#seq, then a summary of the payload.
public enum EventSummary {
    public static func line(for m: BusMessage) -> String {
        let head = "\(m.envelope.time.iso8601) \(m.topic) [\(m.envelope.producer)#\(m.envelope.seq)]"
        return head + " " + summary(m.envelope)
    }

    static func summary(_ e: Envelope) -> String {
        switch e.payload {
        case .typed(let p as Fix):
            var parts = ["fix \(p.mode.rawValue)"]
            if let lat = p.latitude, let lon = p.longitude { parts.append("\(fmt(lat, 6)),\(fmt(lon, 6))") }
            if let a = p.horizontalAccuracy { parts.append("±\(fmt(a, 1)) m") }
            if let alt = p.altitudeMSL { parts.append("alt \(fmt(alt, 1)) m") }
            if let s = p.speed { parts.append("\(fmt(s, 2)) m/s") }
            if let c = p.course { parts.append("course \(fmt(c, 0))°") }
            if let q = p.quality { parts.append(q.rawValue) }
            return parts.joined(separator: " ")
        case .typed(let p as SkyView):
            return "sky \(p.satellites.count) in view, \(p.satellites.filter(\.used).count) used"
        case .typed(let p as BLEAdvertisement):
            var s = "ble \(p.address) \(p.rssi) dBm"
            if let b = p.beacon { s += " \(b.format)" + [b.uuid, b.major.map(String.init), b.minor.map(String.init), b.namespace, b.instance, b.url].compactMap { $0 }.map { " " + $0 }.joined() }
            return s
        case .typed(let p as ClockTick):
            return "tick (\(p.basis.rawValue))"
        case .typed(let p as PluginStatus):
            var s = "\(p.kind) \(p.pluginType) '\(p.plugin)': \(p.state.rawValue)"
            if let r = p.reason { s += " — \(r)" }
            if let d = p.retryIn { s += " (retry in \(fmt(d, 1)) s)" }
            return s
        case .typed(let p):
            var w = JSONWriter()
            p.write(to: &w)
            return "\(e.type) " + String(decoding: w.bytes, as: UTF8.self)
        case .raw(let r):
            return "\(e.type) " + String(decoding: r.json, as: UTF8.self)
        }
    }

    static func fmt(_ v: Double, _ digits: Int) -> String {
        var w = JSONWriter()
        w.double(v, fractionDigits: digits)
        return String(decoding: w.bytes, as: UTF8.self)
    }
}

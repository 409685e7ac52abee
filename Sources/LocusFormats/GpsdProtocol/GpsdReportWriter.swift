import LocusCore

/// gpsd's JSON reports (gpsd_json(5)) as gpsd 3.22 writes them: one object per line, ended by
/// CR LF, keys in gpsd's order, numbers with gpsd's decimals (trailing zeros left out).
public enum GpsdReportWriter {
    /// gpsd's protocol version as of 3.22 (what its clients check).
    public static let protocolMajor = 3
    public static let protocolMinor = 14

    /// A device (a Locus source) as DEVICE and DEVICES report it.
    public struct Device: Sendable, Equatable {
        public var path: String
        public var driver: String
        /// When the device was first seen (wall-clock time).
        public var activated: EventTime

        public init(path: String, driver: String, activated: EventTime) {
            self.path = path
            self.driver = driver
            self.activated = activated
        }
    }

    /// A client's watch policy as WATCH reports it.
    public struct Watch: Sendable, Equatable {
        public var enable = false
        public var json = false
        public var nmea = false
        public var raw = 0
        public var scaled = false
        public var timing = false
        public var split24 = false
        public var pps = false
        public var device: String?

        public init() {}

        /// This policy changed as `request` asks.
        public func applying(_ request: GpsdWatchRequest) -> Watch {
            var w = self
            if let v = request.enable { w.enable = v }
            if let v = request.json { w.json = v }
            if let v = request.nmea { w.nmea = v }
            if let v = request.raw { w.raw = v }
            if let v = request.scaled { w.scaled = v }
            if let v = request.timing { w.timing = v }
            if let v = request.split24 { w.split24 = v }
            if let v = request.pps { w.pps = v }
            if let v = request.device { w.device = v }
            // gpsd: enabling without naming a format means JSON.
            if request.enable == true, request.json == nil, request.nmea == nil, request.raw == nil, !w.nmea, w.raw == 0 { w.json = true }
            return w
        }
    }

    public static func version(release: String, rev: String) -> [UInt8] {
        line { w in
            w.beginObject()
            w.key("class"); w.string("VERSION")
            w.key("release"); w.string(release)
            w.key("rev"); w.string(rev)
            w.key("proto_major"); w.int(protocolMajor)
            w.key("proto_minor"); w.int(protocolMinor)
            w.endObject()
        }
    }

    public static func error(_ message: String) -> [UInt8] {
        line { w in
            w.beginObject()
            w.key("class"); w.string("ERROR")
            w.key("message"); w.string(message)
            w.endObject()
        }
    }

    public static func tpv(_ t: GpsdTPVReport) -> [UInt8] { line { writeTPV(t, to: &$0) } }
    public static func sky(_ s: GpsdSkyReport) -> [UInt8] { line { writeSky(s, to: &$0) } }
    public static func device(_ d: Device) -> [UInt8] { line { writeDevice(d, to: &$0) } }

    /// A device that went away, as gpsd tells its watchers when it deactivates one:
    /// `{"class":"DEVICE","path":"gps0","activated":0}`.
    public static func deviceGone(path: String) -> [UInt8] {
        line { w in
            w.beginObject()
            w.key("class"); w.string("DEVICE")
            w.key("path"); w.string(path)
            w.key("activated"); w.int(0)
            w.endObject()
        }
    }

    public static func devices(_ list: [Device]) -> [UInt8] {
        line { w in
            w.beginObject()
            w.key("class"); w.string("DEVICES")
            w.key("devices")
            w.beginArray()
            for d in list { writeDevice(d, to: &w) }
            w.endArray()
            w.endObject()
        }
    }

    public static func watch(_ p: Watch) -> [UInt8] {
        line { w in
            w.beginObject()
            w.key("class"); w.string("WATCH")
            w.key("enable"); w.bool(p.enable)
            w.key("json"); w.bool(p.json)
            w.key("nmea"); w.bool(p.nmea)
            w.key("raw"); w.int(p.raw)
            w.key("scaled"); w.bool(p.scaled)
            w.key("timing"); w.bool(p.timing)
            w.key("split24"); w.bool(p.split24)
            w.key("pps"); w.bool(p.pps)
            if let d = p.device { w.key("device"); w.string(d) }
            w.endObject()
        }
    }

    /// `?POLL`'s answer: the latest TPV and SKY of each device, at wall-clock `time`.
    public static func poll(time: EventTime, tpvs: [GpsdTPVReport], skies: [GpsdSkyReport]) -> [UInt8] {
        line { w in
            w.beginObject()
            w.key("class"); w.string("POLL")
            w.key("time"); w.time(time)
            w.key("active"); w.int(tpvs.count)
            w.key("tpv")
            w.beginArray()
            for t in tpvs { writeTPV(t, to: &w) }
            w.endArray()
            w.key("gst")
            w.beginArray()
            w.endArray()
            w.key("sky")
            w.beginArray()
            for s in skies { writeSky(s, to: &w) }
            w.endArray()
            w.endObject()
        }
    }

    // MARK: Objects

    static func writeTPV(_ t: GpsdTPVReport, to w: inout JSONWriter) {
        w.beginObject()
        w.key("class"); w.string("TPV")
        w.key("device"); w.string(t.device)
        w.field("status", t.status)
        w.key("mode"); w.int(t.mode)
        w.key("time"); w.time(t.time)
        w.field("lat", t.latitude, fractionDigits: 9)
        w.field("lon", t.longitude, fractionDigits: 9)
        w.field("altHAE", t.altitudeHAE, fractionDigits: 4)
        w.field("altMSL", t.altitudeMSL, fractionDigits: 4)
        // Deprecated by gpsd in favour of altMSL, still read by older clients.
        w.field("alt", t.altitudeMSL, fractionDigits: 4)
        w.field("epv", t.epv, fractionDigits: 3)
        w.field("track", t.track, fractionDigits: 4)
        w.field("speed", t.speed, fractionDigits: 3)
        w.field("climb", t.climb, fractionDigits: 3)
        w.field("eps", t.eps, fractionDigits: 2)
        w.field("epd", t.epd, fractionDigits: 4)
        w.field("geoidSep", t.geoidSeparation, fractionDigits: 3)
        w.field("eph", t.eph, fractionDigits: 3)
        w.endObject()
    }

    static func writeSky(_ s: GpsdSkyReport, to w: inout JSONWriter) {
        w.beginObject()
        w.key("class"); w.string("SKY")
        w.key("device"); w.string(s.device)
        w.key("time"); w.time(s.time)
        w.field("vdop", s.vdop, fractionDigits: 2)
        w.field("hdop", s.hdop, fractionDigits: 2)
        w.field("pdop", s.pdop, fractionDigits: 2)
        w.key("nSat"); w.int(s.satellites.count)
        w.key("uSat"); w.int(s.satellites.reduce(0) { $0 + ($1.used ? 1 : 0) })
        w.key("satellites")
        w.beginArray()
        for sat in s.satellites {
            w.beginObject()
            w.key("PRN"); w.int(sat.prn)
            w.field("el", sat.elevation, fractionDigits: 1)
            w.field("az", sat.azimuth, fractionDigits: 1)
            w.field("ss", sat.snr, fractionDigits: 1)
            w.key("used"); w.bool(sat.used)
            if let id = GpsdSkyReport.gnssID(sat.constellation) {
                w.key("gnssid"); w.int(id)
                w.key("svid"); w.int(GpsdSkyReport.svid(sat))
            }
            w.endObject()
        }
        w.endArray()
        w.endObject()
    }

    static func writeDevice(_ d: Device, to w: inout JSONWriter) {
        w.beginObject()
        w.key("class"); w.string("DEVICE")
        w.key("path"); w.string(d.path)
        w.key("driver"); w.string(d.driver)
        w.key("activated"); w.time(d.activated)
        // gpsd's SEEN_GPS: the device has sent position data.
        w.key("flags"); w.int(1)
        w.endObject()
    }

    private static func line(_ body: (inout JSONWriter) -> Void) -> [UInt8] {
        var w = JSONWriter(capacity: 256)
        body(&w)
        var out = w.bytes
        out.append(0x0D)
        out.append(0x0A)
        return out
    }
}

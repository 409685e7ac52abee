import LocusCore

extension GpsdDataReport {
    /// Decodes one JSON line (without its newline). Throws `GpsdParseError` or `JSONReadError`
    /// for anything that is not a JSON object with a `class`.
    public static func parse(_ line: UnsafeBufferPointer<UInt8>) throws -> GpsdDataReport {
        try parse(line) { r, _ in try r.skipValue() }
    }

    public static func parse(_ line: String) throws -> GpsdDataReport {
        try Array(line.utf8).withUnsafeBufferPointer { try parse($0) }
    }

    /// Decodes one JSON line in one pass, handing every member that is no TPV/SKY/GST field to
    /// `otherMember`, which must read or skip its value: the gpsd source reads the members of
    /// VERSION, DEVICES, DEVICE and ERROR that way, from the same pass. gpsd does not promise
    /// that `class` comes first, so every field is read and the class decides what they mean.
    public static func parse(_ line: UnsafeBufferPointer<UInt8>,
                             otherMember: (inout JSONReader, JSONKey) throws -> Void) throws -> GpsdDataReport {
        var cls: String?
        var device: String?
        var time: EventTime?
        var tpv = GpsdTPV()
        var sky = GpsdSky()
        // lat/lon/alt mean a position in TPV and a 1-sigma error in GST: read once, used per class.
        try JSONReader.read(line) { r in
            guard try r.nextKind() == .object else { throw GpsdParseError("not a JSON object") }
            try r.readObject { r, k in
                if k == "class" { cls = try r.readString() }
                else if k == "device" { device = try r.readOptionalString() }
                else if k == "time" { time = try readTime(&r) }
                else if k == "mode" { tpv.mode = try r.readOptionalInt() ?? 0 }
                else if k == "status" { tpv.status = try r.readOptionalInt() }
                else if k == "lat" { tpv.lat = try readNumber(&r) }
                else if k == "lon" { tpv.lon = try readNumber(&r) }
                else if k == "alt" { tpv.alt = try readNumber(&r) }
                else if k == "altHAE" { tpv.altHAE = try readNumber(&r) }
                else if k == "altMSL" { tpv.altMSL = try readNumber(&r) }
                else if k == "speed" { tpv.speed = try readNumber(&r) }
                else if k == "track" { tpv.track = try readNumber(&r) }
                else if k == "climb" { tpv.climb = try readNumber(&r) }
                else if k == "eph" { tpv.eph = try readNumber(&r) }
                else if k == "epx" { tpv.epx = try readNumber(&r) }
                else if k == "epy" { tpv.epy = try readNumber(&r) }
                else if k == "epv" { tpv.epv = try readNumber(&r) }
                else if k == "eps" { tpv.eps = try readNumber(&r) }
                else if k == "epd" { tpv.epd = try readNumber(&r) }
                else if k == "ept" { tpv.ept = try readNumber(&r) }
                else if k == "hdop" { sky.hdop = try readNumber(&r) }
                else if k == "vdop" { sky.vdop = try readNumber(&r) }
                else if k == "pdop" { sky.pdop = try readNumber(&r) }
                else if k == "uSat" { sky.usedCount = try r.readOptionalInt() }
                else if k == "satellites" {
                    if !r.readNull() {
                        var satellites: [GpsdSatellite] = []
                        try r.readArray { r in satellites.append(try readSatellite(&r)) }
                        sky.satellites = satellites
                    }
                }
                else { try otherMember(&r, k) }
            }
        }
        guard let cls else { throw GpsdParseError("object without \"class\"") }
        switch cls {
        case "TPV":
            // A position off the globe is a broken report, not a fix (no subscriber may see it).
            if let lat = tpv.lat, !(-90...90).contains(lat) { throw GpsdParseError("TPV lat out of range -90...90") }
            if let lon = tpv.lon, !(-180...180).contains(lon) { throw GpsdParseError("TPV lon out of range -180...180") }
            tpv.device = device
            tpv.time = time
            return .tpv(tpv)
        case "SKY":
            sky.device = device
            sky.time = time
            return .sky(sky)
        case "GST":
            var g = GpsdGST()
            g.device = device
            g.time = time
            g.lat = tpv.lat
            g.lon = tpv.lon
            g.alt = tpv.alt
            return .gst(g)
        default:
            return .other(cls)
        }
    }

    /// A number, or nil for `null` (gpsd prints no NaN, but be lenient about null).
    static func readNumber(_ r: inout JSONReader) throws -> Double? {
        guard let v = try r.readOptionalDouble(), v.isFinite else { return nil }
        return v
    }

    /// ISO 8601 string (gpsd ≥ 3.10), or seconds since the epoch (older protocol versions).
    static func readTime(_ r: inout JSONReader) throws -> EventTime? {
        switch try r.nextKind() {
        case .string:
            let s = try r.readString()
            guard let t = EventTime(iso8601: s) else { throw GpsdParseError("bad time '\(s)'") }
            return t
        case .number:
            let seconds = try r.readDouble()
            guard let t = EventTime(checkedSeconds: seconds) else { throw GpsdParseError("time out of range") }
            return t
        case .null: _ = r.readNull(); return nil
        default: throw GpsdParseError("time is neither a string nor a number")
        }
    }

    /// A satellite without `PRN` makes the line malformed rather than being dropped: gpsd
    /// always writes one, and a partial list would also miscount the satellites used.
    static func readSatellite(_ r: inout JSONReader) throws -> GpsdSatellite {
        var prn: Int?, gnssid: Int?, svid: Int?, el: Double?, az: Double?, ss: Double?, used = false
        try r.readObject { r, k in
            if k == "PRN" { prn = try r.readOptionalInt() }
            else if k == "gnssid" { gnssid = try r.readOptionalInt() }
            else if k == "svid" { svid = try r.readOptionalInt() }
            else if k == "el" { el = try readNumber(&r) }
            else if k == "az" { az = try readNumber(&r) }
            else if k == "ss" { ss = try readNumber(&r) }
            else if k == "used" { used = try r.readOptionalBool() ?? false }
            else { try r.skipValue() }
        }
        guard let prn else { throw GpsdParseError("satellite without PRN") }
        return GpsdSatellite(prn: prn, gnssid: gnssid, svid: svid, elevation: el, azimuth: az, snr: ss, used: used)
    }
}

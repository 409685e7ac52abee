/// The satellites a receiver sees (`obs.sky`, topic `obs.sky.<source>`).
public struct SkyView: Payload, Equatable {
    public static let eventType = "obs.sky"
    public static let schemaVersion = 1

    public struct Satellite: Sendable, Equatable {
        /// `gps`, `glonass`, `galileo`, `beidou`, `qzss`, `navic`, `sbas` or `unknown`.
        public var constellation: String
        /// PRN / satellite number as the receiver reports it.
        public var prn: Int
        /// Degrees above the horizon.
        public var elevation: Double?
        /// Degrees clockwise from true north.
        public var azimuth: Double?
        /// Carrier-to-noise density, dB-Hz.
        public var snr: Double?
        /// Whether the satellite is used in the fix.
        public var used: Bool
        /// Signal id (NMEA 4.10+), e.g. `L1C/A`, when known.
        public var signal: String?

        public init(constellation: String, prn: Int, elevation: Double? = nil, azimuth: Double? = nil,
                    snr: Double? = nil, used: Bool, signal: String? = nil) {
            self.constellation = constellation
            self.prn = prn
            self.elevation = elevation
            self.azimuth = azimuth
            self.snr = snr
            self.used = used
            self.signal = signal
        }
    }

    public var source: String
    public var satellites: [Satellite]

    public init(source: String, satellites: [Satellite]) {
        self.source = source
        self.satellites = satellites
    }

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key("source"); w.string(source)
        w.key("in_view"); w.int(satellites.count)
        var used = 0
        for s in satellites where s.used { used += 1 }
        w.key("used"); w.int(used)
        w.key("satellites")
        w.beginArray()
        for s in satellites {
            w.beginObject()
            w.key("constellation"); w.string(s.constellation)
            w.key("prn"); w.int(s.prn)
            w.field("elevation", s.elevation, fractionDigits: 1)
            w.field("azimuth", s.azimuth.map { Bearing.wireValue($0, fractionDigits: 1) }, fractionDigits: 1)
            w.field("snr", s.snr, fractionDigits: 1)
            w.key("used"); w.bool(s.used)
            w.field("signal", s.signal)
            w.endObject()
        }
        w.endArray()
        w.endObject()
    }

    public init(from r: inout JSONReader) throws {
        var source: String?
        var sats: [Satellite] = []
        try r.readObject { r, k in
            if k == "source" { source = try r.readString() }
            else if k == "satellites" {
                try r.readArray { r in
                    var c: String?, prn: Int?, el: Double?, az: Double?, snr: Double?, used = false, sig: String?
                    try r.readObject { r, k in
                        if k == "constellation" { c = try r.readString() }
                        else if k == "prn" { prn = try r.readInt() }
                        else if k == "elevation" { el = try r.readOptionalDouble() }
                        else if k == "azimuth" { az = try r.readOptionalDouble() }
                        else if k == "snr" { snr = try r.readOptionalDouble() }
                        else if k == "used" { used = try r.readBool() }
                        else if k == "signal" { sig = try r.readOptionalString() }
                        else { try r.skipValue() }
                    }
                    guard let c, let prn else { throw r.error("satellite needs constellation and prn") }
                    sats.append(Satellite(constellation: c, prn: prn, elevation: el, azimuth: az, snr: snr, used: used, signal: sig))
                }
            }
            else { try r.skipValue() }
        }
        guard let source else { throw r.error("sky view without source") }
        self.init(source: source, satellites: sats)
    }
}

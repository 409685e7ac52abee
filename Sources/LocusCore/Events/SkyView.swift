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
}

/// Which GNSS a satellite belongs to, from the talker id, the GSA system id (NMEA 4.10+) or,
/// for `GN` sentences without one, the NMEA 4.0 PRN ranges.
enum NMEAConstellation: UInt8 {
    case gps, glonass, galileo, beidou, qzss, navic, sbas, unknown

    /// The `SkyView.Satellite.constellation` string.
    var name: String {
        switch self {
        case .gps: return "gps"
        case .glonass: return "glonass"
        case .galileo: return "galileo"
        case .beidou: return "beidou"
        case .qzss: return "qzss"
        case .navic: return "navic"
        case .sbas: return "sbas"
        case .unknown: return "unknown"
        }
    }

    /// From a talker id; nil for `GN` (multi-system) and non-GNSS talkers.
    init?(talker t: UInt16) {
        switch t {
        case nmeaTalker("GP"): self = .gps
        case nmeaTalker("GL"): self = .glonass
        case nmeaTalker("GA"): self = .galileo
        case nmeaTalker("GB"), nmeaTalker("BD"): self = .beidou
        // PQ is Quectel's pre-4.11 QZSS talker.
        case nmeaTalker("GQ"), nmeaTalker("QZ"), nmeaTalker("PQ"): self = .qzss
        case nmeaTalker("GI"): self = .navic
        default: return nil
        }
    }

    /// GSA field 18 / GSV system ids (NMEA 4.10 table: 1 GPS … 6 NavIC).
    init?(systemId: Int?) {
        switch systemId {
        case 1: self = .gps
        case 2: self = .glonass
        case 3: self = .galileo
        case 4: self = .beidou
        case 5: self = .qzss
        case 6: self = .navic
        default: return nil
        }
    }

    /// NMEA 4.0 satellite numbering, used where the talker does not say: 1–32 GPS,
    /// 33–64 SBAS (PRN 120–151 minus 87), 65–96 GLONASS, 193–202 QZSS; the common
    /// u-blox extensions 120–158 SBAS, 201–237 and 401–437 BeiDou, 301–336 Galileo.
    init(prn: Int) {
        switch prn {
        case 1...32: self = .gps
        case 33...64, 120...158: self = .sbas
        case 65...96: self = .glonass
        case 193...202: self = .qzss
        case 201...237, 401...437: self = .beidou
        case 301...336: self = .galileo
        default: self = .unknown
        }
    }

    /// A satellite reported by `talker`: GPS talkers also carry SBAS (33–64) and QZSS numbers.
    static func of(prn: Int, talker: UInt16, systemId: Int? = nil) -> NMEAConstellation {
        if let c = NMEAConstellation(systemId: systemId) { return c }
        if let c = NMEAConstellation(talker: talker) {
            if c == .gps, prn > 32 { return NMEAConstellation(prn: prn) }
            return c
        }
        return NMEAConstellation(prn: prn)
    }

    /// GSV signal id names (NMEA 4.11, table "GNSS signal id"); nil when unknown.
    func signalName(_ id: Int?) -> String? {
        guard let id, id > 0 else { return nil }
        let names = Self.signalNames[Int(rawValue)]
        return id <= names.count ? names[id - 1] : nil
    }

    /// Indexed by `rawValue`.
    private static let signalNames: [[String]] = [
        ["L1C/A", "L1P(Y)", "L1M", "L2P(Y)", "L2C-M", "L2C-L", "L5-I", "L5-Q"], // gps
        ["G1C/A", "G1P", "G2C/A", "G2P"], // glonass
        ["E5a", "E5b", "E5a+b", "E6-A", "E6-BC", "L1-A", "L1-BC"], // galileo
        ["B1I", "B1Q", "B1C", "B1A", "B2a", "B2b", "B2a+b", "B3I", "B3Q", "B3A", "B2I", "B2Q"], // beidou
        ["L1C/A", "L1C(D)", "L1C(P)", "LIS", "L2C-M", "L2C-L", "L5-I", "L5-Q", "L6D", "L6E"], // qzss
        ["L5-SPS", "S-SPS", "L5-RS", "S-RS", "L1-SPS"], // navic
        ["L1C/A", "L1P(Y)", "L1M", "L2P(Y)", "L2C-M", "L2C-L", "L5-I", "L5-Q"], // sbas: GPS signals
        [], // unknown
    ]
}

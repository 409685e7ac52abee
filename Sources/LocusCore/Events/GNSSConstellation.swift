/// Constellation names as `SkyView.Satellite.constellation` carries them.
public enum GNSSConstellation {
    /// From a u-blox style `gnssId` (as gpsd reports it), or — for receivers and gpsd versions
    /// without one — from the NMEA-style PRN ranges gpsd uses.
    public static func name(gnssID: Int?, prn: Int) -> String {
        if let gnssID {
            switch gnssID {
            case 0: return "gps"
            case 1: return "sbas"
            case 2: return "galileo"
            case 3: return "beidou"
            case 5: return "qzss"
            case 6: return "glonass"
            case 7: return "navic"
            default: return "unknown"
            }
        }
        switch prn {
        case 1...63: return "gps"
        case 64...96: return "glonass"
        case 120...158: return "sbas"
        case 193...200: return "qzss"
        case 201...263, 401...437: return "beidou"
        case 301...336: return "galileo"
        default: return "unknown"
        }
    }
}

import LocusCore

/// The NMEA 2.3+ mode indicator letter (RMC 12, GLL 7, VTG 9, GNS 6):
/// A autonomous, D differential, E estimated (dead reckoning), F RTK float, M manual input,
/// N not valid, P precise, R RTK fixed, S simulator.
enum NMEAModeIndicator {
    static let notValid = UInt8(ascii: "N")
    /// Most to least precise.
    private static let rankOrder: [UInt8] = Array("RFPDAEMS".utf8)

    static func quality(_ c: UInt8?) -> Fix.Quality? {
        switch c {
        case UInt8(ascii: "A"): return .gps
        case UInt8(ascii: "D"): return .dgps
        case UInt8(ascii: "P"): return .pps
        case UInt8(ascii: "R"): return .rtkFixed
        case UInt8(ascii: "F"): return .rtkFloat
        case UInt8(ascii: "E"): return .deadReckoning
        case UInt8(ascii: "M"): return .manual
        case UInt8(ascii: "S"): return .simulated
        default: return nil
        }
    }

    /// GGA quality (field 6) as `Fix.Quality`; 0 (invalid) is nil.
    static func quality(gga q: Int?) -> Fix.Quality? {
        switch q {
        case 1: return .gps
        case 2: return .dgps
        case 3: return .pps
        case 4: return .rtkFixed
        case 5: return .rtkFloat
        case 6: return .deadReckoning
        case 7: return .manual
        case 8: return .simulated
        default: return nil
        }
    }

    /// Of GNS's per-system letters, the most precise one (`N` only when all are `N`).
    static func best(_ f: UnsafeBufferPointer<UInt8>) -> UInt8? {
        var best: UInt8?, rank = Int.max
        for c in f {
            if let r = rankOrder.firstIndex(of: c), r < rank { rank = r; best = c }
            else if best == nil, c == notValid { best = c }
        }
        return best
    }
}

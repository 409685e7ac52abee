/// GSA, GNSS DOP and Active Satellites. Fields: 1 selection mode (M/A), 2 fix type
/// (1 none, 2 2D, 3 3D), 3–14 PRNs used, 15 PDOP, 16 HDOP, 17 VDOP, 18 GNSS system id
/// (NMEA 4.10+: 1 GPS, 2 GLONASS, 3 Galileo, 4 BeiDou, 5 QZSS, 6 NavIC).
struct GSA {
    var fixType: Int?
    var pdop: Double?
    var hdop: Double?
    var vdop: Double?
    var systemId: Int?

    init(_ s: NMEASentenceView) {
        fixType = s.int(2)
        pdop = s.double(15)
        hdop = s.double(16)
        vdop = s.double(17)
        systemId = s.fieldCount > 18 ? s.int(18) : nil
    }

    /// PRNs in fields 3–14, read in place.
    static func forEachPRN(_ s: NMEASentenceView, _ body: (Int) -> Void) {
        for i in 3...14 where i < s.fieldCount {
            if let p = s.int(i), p > 0 { body(p) }
        }
    }
}

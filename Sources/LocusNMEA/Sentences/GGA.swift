/// GGA, Global Positioning System Fix Data. Fields (NMEA 0183): 1 UTC time, 2–3 latitude,
/// 4–5 longitude, 6 quality, 7 satellites used, 8 HDOP, 9–10 altitude MSL (m),
/// 11–12 geoid separation (m), 13 DGPS age, 14 station id.
struct GGA {
    var time: Int?
    var latitude: Double?
    var longitude: Double?
    /// 0 invalid, 1 GPS, 2 DGPS, 3 PPS, 4 RTK fixed, 5 RTK float, 6 estimated, 7 manual, 8 simulated.
    var quality: Int?
    var satellites: Int?
    var hdop: Double?
    var altitudeMSL: Double?
    var geoidSeparation: Double?

    init(_ s: NMEASentenceView) {
        time = NMEANumber.timeOfDay(s.field(1))
        latitude = NMEANumber.coordinate(s.field(2), hemisphere: s.character(3), isLatitude: true)
        longitude = NMEANumber.coordinate(s.field(4), hemisphere: s.character(5), isLatitude: false)
        quality = s.int(6)
        satellites = s.int(7)
        hdop = s.double(8)
        altitudeMSL = s.double(9)
        geoidSeparation = s.double(11)
    }
}

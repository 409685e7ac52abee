/// GNS, GNSS Fix Data. Fields: 1 UTC time, 2–3 latitude, 4–5 longitude, 6 mode indicators
/// (one letter per system: GPS, GLONASS, Galileo, BeiDou, …), 7 satellites used, 8 HDOP,
/// 9 altitude MSL (m), 10 geoid separation (m), 11 DGPS age, 12 station, 13 navigational
/// status (NMEA 4.10+).
struct GNS {
    var time: Int?
    var latitude: Double?
    var longitude: Double?
    /// The best of the per-system mode letters (see `NMEAModeIndicator.best`).
    var mode: UInt8?
    var satellites: Int?
    var hdop: Double?
    var altitudeMSL: Double?
    var geoidSeparation: Double?

    init(_ s: NMEASentenceView) {
        time = NMEANumber.timeOfDay(s.field(1))
        latitude = NMEANumber.coordinate(s.field(2), hemisphere: s.character(3), isLatitude: true)
        longitude = NMEANumber.coordinate(s.field(4), hemisphere: s.character(5), isLatitude: false)
        mode = NMEAModeIndicator.best(s.field(6))
        satellites = s.int(7)
        hdop = s.double(8)
        altitudeMSL = s.double(9)
        geoidSeparation = s.double(10)
    }
}

/// GLL, Geographic Position. Fields: 1–2 latitude, 3–4 longitude, 5 UTC time,
/// 6 status (A valid, V invalid), 7 mode indicator (NMEA 2.3+).
struct GLL {
    var latitude: Double?
    var longitude: Double?
    var time: Int?
    var status: UInt8?
    var mode: UInt8?

    init(_ s: NMEASentenceView) {
        latitude = NMEANumber.coordinate(s.field(1), hemisphere: s.character(2), isLatitude: true)
        longitude = NMEANumber.coordinate(s.field(3), hemisphere: s.character(4), isLatitude: false)
        time = NMEANumber.timeOfDay(s.field(5))
        status = s.character(6)
        mode = s.character(7)
    }
}

/// RMC, Recommended Minimum Specific GNSS Data. Fields: 1 UTC time, 2 status (A valid,
/// V warning), 3–4 latitude, 5–6 longitude, 7 speed over ground (knots), 8 course over ground
/// (degrees true), 9 date `ddmmyy`, 10–11 magnetic variation, 12 mode indicator (NMEA 2.3+),
/// 13 navigational status (NMEA 4.10+: S safe, C caution, U unsafe, V not valid).
struct RMC {
    var time: Int?
    var status: UInt8?
    var latitude: Double?
    var longitude: Double?
    var speedKnots: Double?
    var course: Double?
    /// Days since 1970-01-01.
    var date: Int?
    var mode: UInt8?
    /// Parsed but not used for validity: many receivers send `V` ("not valid" = not
    /// provided) together with status `A` (quectel, telit logs).
    var navigationalStatus: UInt8?

    init(_ s: NMEASentenceView) {
        time = NMEANumber.timeOfDay(s.field(1))
        status = s.character(2)
        latitude = NMEANumber.coordinate(s.field(3), hemisphere: s.character(4), isLatitude: true)
        longitude = NMEANumber.coordinate(s.field(5), hemisphere: s.character(6), isLatitude: false)
        speedKnots = s.double(7)
        course = s.double(8)
        date = NMEANumber.rmcDate(s.field(9))
        mode = s.character(12)
        navigationalStatus = s.character(13)
    }
}

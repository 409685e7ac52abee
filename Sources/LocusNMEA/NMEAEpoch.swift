/// What the sentences of one epoch (one UTC time of day) said, before it becomes a `Fix`.
/// Later sentences overwrite earlier ones field by field, as gpsd merges a reporting cycle.
struct NMEAEpoch {
    /// Milliseconds since midnight UTC.
    var timeOfDay: Int
    /// Days since 1970-01-01, when known.
    var days: Int?
    /// Midnights passed before this epoch while no date was known (its day, counted from the
    /// first epoch's): dates it backwards once a date arrives.
    var undatedDay = 0

    var latitude: Double?
    var longitude: Double?
    var altitudeMSL: Double?
    var geoidSeparation: Double?
    var speed: Double?
    var course: Double?
    var heading: Double?
    var ggaQuality: Int?
    var gsaFixType: Int?
    var modeIndicator: UInt8?
    /// RMC/GLL status `A` seen (position valid).
    var statusValid = false
    var satellitesUsed: Int?
    var hdop: Double?
    var vdop: Double?
    var pdop: Double?
    var sigmaLatitude: Double?
    var sigmaLongitude: Double?
    var sigmaAltitude: Double?
    /// Satellites GSA lists as used, `constellation << 16 | prn`.
    var used: [UInt32] = []
    /// A GSA in this epoch already replaced `used`.
    var sawGSA = false
    /// A position sentence (GGA, RMC, GLL, GNS) was seen.
    var hasPositionSentence = false

    init(timeOfDay: Int, days: Int?) {
        self.timeOfDay = timeOfDay
        self.days = days
    }
}

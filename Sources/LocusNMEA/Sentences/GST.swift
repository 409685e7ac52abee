/// GST, GNSS Pseudorange Error Statistics. Fields: 1 UTC time, 2 RMS of range residuals,
/// 3 error ellipse semi-major 1-sigma (m), 4 semi-minor (m), 5 orientation (°),
/// 6 latitude 1-sigma error (m), 7 longitude 1-sigma error (m), 8 altitude 1-sigma error (m).
struct GST {
    var time: Int?
    var sigmaLatitude: Double?
    var sigmaLongitude: Double?
    var sigmaAltitude: Double?

    init(_ s: NMEASentenceView) {
        time = NMEANumber.timeOfDay(s.field(1))
        sigmaLatitude = s.double(6)
        sigmaLongitude = s.double(7)
        sigmaAltitude = s.double(8)
    }
}

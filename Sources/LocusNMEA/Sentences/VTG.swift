/// VTG, Course Over Ground and Ground Speed. NMEA 2.x+: 1 course true, 2 `T`, 3 course
/// magnetic, 4 `M`, 5 speed knots, 6 `N`, 7 speed km/h, 8 `K`, 9 mode indicator. NMEA 1.x has
/// no unit letters: 1 course true, 2 course magnetic, 3 knots, 4 km/h.
struct VTG {
    var course: Double?
    var speedKnots: Double?
    var speedKmh: Double?
    var mode: UInt8?

    init(_ s: NMEASentenceView) {
        course = s.double(1)
        if s.character(2) == UInt8(ascii: "T") || s.fieldCount > 6 {
            speedKnots = s.double(5)
            speedKmh = s.double(7)
            mode = s.character(9)
        } else {
            speedKnots = s.double(3)
            speedKmh = s.double(4)
        }
    }

    /// Speed in m/s, from knots or else km/h.
    var speed: Double? {
        if let k = speedKnots { return k * NMEAUnits.metresPerSecondPerKnot }
        if let k = speedKmh { return k / 3.6 }
        return nil
    }
}

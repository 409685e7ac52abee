/// Course and heading travel in [0, 360): the schemas say so, and a subscriber comparing
/// `course < 360` must not meet `360`. (LocusCore's `Bearing` does the same for `obs.fix`
/// but is internal to LocusCore.)
enum CompassAngle {
    /// `degrees` wrapped into [0, 360) *after* rounding to the two digits written, so 359.996 is
    /// written as 0, not 360.
    static func wireValue(_ degrees: Double) -> Double {
        guard degrees.isFinite else { return degrees }
        var r = (degrees * 100).rounded() / 100
        r = r.truncatingRemainder(dividingBy: 360)
        if r < 0 { r += 360 }
        if r >= 360 { r -= 360 }
        return r == 0 ? 0 : r  // no -0
    }
}

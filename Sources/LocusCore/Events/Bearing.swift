/// Angles clockwise from true north travel in [0, 360): the schemas say so, and a subscriber
/// comparing `course < 360` must not meet `360`. Payloads that write courses or headings
/// (`obs.fix`, `location.update`, …) pass them through `wireValue`.
public enum Bearing {
    /// `degrees` wrapped into [0, 360) *after* rounding to the digits written, so 359.996 at
    /// two digits is written as 0, not 360.
    public static func wireValue(_ degrees: Double, fractionDigits: Int) -> Double {
        guard degrees.isFinite else { return degrees }
        var scale = 1.0
        for _ in 0..<fractionDigits { scale *= 10 }
        var r = (degrees * scale).rounded() / scale
        r = r.truncatingRemainder(dividingBy: 360)
        if r < 0 { r += 360 }
        if r >= 360 { r -= 360 }
        return r == 0 ? 0 : r  // no -0
    }
}

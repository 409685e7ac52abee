/// Unit conversions and modelling constants used when assembling fixes.
public enum NMEAUnits {
    /// 1 international knot = 1852 m / 3600 s.
    public static let metresPerSecondPerKnot = 1852.0 / 3600.0

    /// 1-sigma user equivalent range error (m) used to turn DOPs into accuracies when the
    /// receiver sends no GST: horizontal = HDOP × UERE, vertical = VDOP × UERE, both 1-sigma.
    /// 4 m is a typical single-frequency autonomous GPS figure (ephemeris, clock, ionosphere,
    /// troposphere, multipath and noise combined).
    public static let userEquivalentRangeError = 4.0
}

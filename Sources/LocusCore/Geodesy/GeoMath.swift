import Foundation

/// Angle arithmetic in degrees for the geodesic solver, after the helpers Karney describes for
/// GeographicLib.
///
/// Reducing angles in degrees before converting to radians keeps exact results at multiples
/// of 90° (sin 180° is exactly 0, not 1.2e-16). The solver uses exact zeros to recognise
/// meridians, the equator and the poles, so these cases are kept exact.
enum GeoMath {
    static let degree = Double.pi / 180

    /// Latitude, or NaN when it is outside [-90, 90]; this turns bad input into NaN output.
    static func latitudeOrNaN(_ x: Double) -> Double { abs(x) > 90 ? .nan : x }

    /// `x` reduced to [-180, 180]. At ±180 the result keeps the sign of `x`, so 180 and
    /// -180 stay as given.
    static func normalize(_ x: Double) -> Double {
        let y = x.remainder(dividingBy: 360)
        return abs(y) == 180 ? Double(signOf: x, magnitudeOf: 180) : y
    }

    /// The sum `u + v` and its rounding error (Knuth's TwoSum): `sum + error == u + v` exactly.
    static func twoSum(_ u: Double, _ v: Double) -> (sum: Double, error: Double) {
        let s = u + v
        var up = s - v
        var vpp = s - up
        up -= u
        vpp -= v
        // A zero sum keeps its sign; the error is then zero too.
        return (s, s != 0 ? 0 - (up + vpp) : s)
    }

    /// `y - x` reduced to [-180, 180], as `difference + error` with `error` tiny.
    ///
    /// Subtracting before reducing would lose the low bits of, e.g., 179.9999999 - (-179.9999999);
    /// reducing each term first and keeping the rounding error of the sum does not.
    static func difference(_ x: Double, _ y: Double) -> (difference: Double, error: Double) {
        var (d, e) = twoSum((-x).remainder(dividingBy: 360), y.remainder(dividingBy: 360))
        (d, e) = twoSum(d.remainder(dividingBy: 360), e)
        if d == 0 || abs(d) == 180 {
            // The sign of ±0 or ±180 says which way round the globe is shorter.
            d = Double(signOf: e == 0 ? y - x : -e, magnitudeOf: d)
        }
        return (d, e)
    }

    /// Rounds angles below 1/16° to a multiple of 2^-57 degrees (about 7e-18°,
    /// under a picometre on the ground).
    ///
    /// Latitudes of 1e-20° and 0° then give the same answer, so a point "almost on the
    /// equator" is treated as on it instead of sending the solver down an ill-conditioned path.
    static func round(_ x: Double) -> Double {
        let z = 1.0 / 16
        var y = abs(x)
        y = y < z ? z - (z - y) : y
        return Double(signOf: x, magnitudeOf: y)
    }

    /// Sine and cosine of `x` degrees, exact at multiples of 90°.
    static func sinCos(degrees x: Double) -> (sin: Double, cos: Double) {
        guard let (r, quadrant) = reduceToQuadrant(x) else { return (.nan, .nan) }
        return rotate(r * degree, quadrant: quadrant, signOf: x)
    }

    /// Sine and cosine of `x + t` degrees, where `t` is a small correction to `x` (the error
    /// term from `difference`). Adding `t` only after the quadrant reduction keeps its bits.
    static func sinCos(degrees x: Double, plus t: Double) -> (sin: Double, cos: Double) {
        guard let (r, quadrant) = reduceToQuadrant(x) else { return (.nan, .nan) }
        return rotate(round(r + t) * degree, quadrant: quadrant, signOf: x)
    }

    /// `atan2(y, x)` in degrees, in [-180, 180].
    ///
    /// Folding the arguments so the radian result lies in [-45°, 45°] first keeps, e.g.,
    /// atan2d(1, 0) at exactly 90 and atan2d(0, -1) at exactly 180.
    static func atan2Degrees(_ y: Double, _ x: Double) -> Double {
        var x = x, y = y
        var quadrant = 0
        if abs(y) > abs(x) { swap(&x, &y); quadrant = 2 }
        if x.sign == .minus { x = -x; quadrant += 1 }
        let angle = atan2(y, x) / degree
        switch quadrant {
        case 1: return Double(signOf: y, magnitudeOf: 180) - angle
        case 2: return 90 - angle
        case 3: return -90 + angle
        default: return angle
        }
    }

    /// `(x, y)` scaled to unit length.
    static func normalized(_ x: Double, _ y: Double) -> (Double, Double) {
        let h = hypot(x, y)
        return (x / h, y / h)
    }

    /// `x` as `r + 90·q` with `r` in [-45, 45] and `q` taken modulo 4; nil for infinities and NaN.
    private static func reduceToQuadrant(_ x: Double) -> (Double, Int)? {
        guard x.isFinite else { return nil }
        let r = x.remainder(dividingBy: 90)
        var q = ((x - r) / 90).truncatingRemainder(dividingBy: 4)
        if q < 0 { q += 4 }
        return (r, Int(q))
    }

    private static func rotate(_ radians: Double, quadrant: Int, signOf x: Double) -> (sin: Double, cos: Double) {
        let s = sin(radians), c = cos(radians)
        var sinX: Double, cosX: Double
        switch quadrant {
        case 0: (sinX, cosX) = (s, c)
        case 1: (sinX, cosX) = (c, -s)
        case 2: (sinX, cosX) = (-s, -c)
        default: (sinX, cosX) = (-c, s)
        }
        // IEEE conventions: cos never returns -0, and sin(±0) keeps the sign of the argument.
        cosX += 0
        if sinX == 0 { sinX = Double(signOf: x, magnitudeOf: 0) }
        return (sinX, cosX)
    }
}

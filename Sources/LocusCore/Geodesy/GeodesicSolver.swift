import Foundation

/// Geodesics on an oblate ellipsoid of revolution by Karney's method (C. F. F. Karney,
/// "Algorithms for geodesics", J. Geodesy 87, 43–55, 2013), the method of GeographicLib.
///
/// A geodesic is mapped onto a great circle on an auxiliary sphere, where latitude becomes
/// reduced latitude β and distance and longitude become integrals over the spherical arc
/// length σ, expanded as series in the small parameter ε. The inverse problem is then a
/// one-dimensional root find for the initial azimuth, which converges everywhere (including
/// nearly antipodal points, where Vincenty's iteration fails) thanks to a good starting guess
/// and a bracketing fallback.
///
/// Units: metres and degrees at the edges; radians and units of the minor axis inside.
/// The series are truncated at sixth order, which is accurate to round-off for |f| ≤ 1/100.
/// Prolate ellipsoids (f < 0) are not supported.
struct GeodesicSolver: Sendable {
    /// Equatorial radius a, metres.
    let a: Double
    /// Flattening f = (a − b)/a.
    let f: Double
    /// 1 − f.
    let f1: Double
    /// First eccentricity squared, e² = f(2 − f).
    let e2: Double
    /// Second eccentricity squared, e′² = e²/(1 − e²).
    let ep2: Double
    /// Third flattening n = f/(2 − f); the natural expansion parameter for the ellipsoid.
    let n: Double
    /// Polar semi-axis b, metres.
    let b: Double
    /// Below this spherical arc the inverse solution skips Newton's method entirely.
    let shortLineLimit: Double

    /// A₃(ε) coefficients of ε⁰…ε⁵; they depend on n only, so they are fixed per ellipsoid.
    private let a3: (Double, Double, Double, Double, Double, Double)
    /// C₃ₗ(ε) coefficients, flattened: those of ε¹…ε⁵ for C₃₁, then ε²…ε⁵ for C₃₂, and so on.
    private let c3: [Double]

    /// WGS-84: a = 6 378 137 m, 1/f = 298.257 223 563.
    static let wgs84 = GeodesicSolver(equatorialRadius: Geodesic.equatorialRadius, flattening: Geodesic.flattening)

    static let tiny = Double.leastNormalMagnitude.squareRoot()
    static let tol0 = Double.ulpOfOne
    /// How close to the antipodal cut (y = 0 in the scaled coordinates of `inverseStart`)
    /// counts as on it; 200 ulps absorbs the round-off in computing y.
    static let tol1 = 200 * tol0
    static let tol2 = tol0.squareRoot()
    static let xThreshold = 1000 * tol2
    /// Newton iterations before switching to pure bisection (WGS-84 never needs more than ~16).
    static let maxNewton = 20
    /// Enough bisections on top to resolve every bit of a double.
    static let maxIterations = maxNewton + Double.significandBitCount + 1 + 10

    init(equatorialRadius a: Double, flattening f: Double) {
        precondition(a > 0 && f >= 0 && f <= 0.01, "oblate ellipsoids with f ≤ 1/100 only")
        self.a = a
        self.f = f
        f1 = 1 - f
        e2 = f * (2 - f)
        ep2 = e2 / (f1 * f1)
        n = f / (2 - f)
        b = a * f1
        // Short lines are solved in closed form when the spherical estimate is already good
        // to round-off; the bound depends on how far the ellipsoid is from a sphere.
        shortLineLimit = 0.1 * Self.tol2 / (max(0.001, abs(f)) * min(1, 1 - f / 2) / 2).squareRoot()

        let n = self.n, nn = n * n
        a3 = (1, (n - 1) / 2, (3 * nn - n - 2) / 8, (-nn - 3 * n - 1) / 16, (-2 * n - 3) / 64, -3.0 / 128)
        c3 = [
            (1 - n) / 4, (1 - nn) / 8, (3 + 3 * n - nn) / 64, (5 + 2 * n) / 128, 3.0 / 128,
            (2 - 3 * n + nn) / 32, (3 - 2 * n - 3 * nn) / 64, (3 + n) / 128, 5.0 / 256,
            (5 - 9 * n + 5 * nn) / 192, (9 - 10 * n) / 384, 7.0 / 512,
            (7 - 14 * n) / 512, 7.0 / 512,
            21.0 / 2560,
        ]
    }

    /// A₃(ε), the secular part of the longitude integral I₃ (Karney 2013).
    func a3f(_ eps: Double) -> Double {
        a3.0 + eps * (a3.1 + eps * (a3.2 + eps * (a3.3 + eps * (a3.4 + eps * a3.5))))
    }

    /// C₃ₗ(ε), the periodic part of I₃ (Karney 2013); five terms, the sixth is zero.
    func c3f(_ eps: Double) -> SineSeries {
        let x = c3
        let e2 = eps * eps, e3 = e2 * eps, e4 = e2 * e2
        return SineSeries(
            c1: eps * (x[0] + eps * (x[1] + eps * (x[2] + eps * (x[3] + eps * x[4])))),
            c2: e2 * (x[5] + eps * (x[6] + eps * (x[7] + eps * x[8]))),
            c3: e3 * (x[9] + eps * (x[10] + eps * x[11])),
            c4: e4 * (x[12] + eps * x[13]),
            c5: e4 * eps * x[14],
            c6: 0)
    }

    /// ε for a geodesic whose equatorial azimuth α₀ has the given cosine.
    func epsilon(cosAlpha0: Double) -> Double {
        let k2 = cosAlpha0 * cosAlpha0 * ep2
        // (√(1+k²) − 1)/(√(1+k²) + 1), rearranged to avoid cancellation for small k.
        return k2 / (2 * (1 + (1 + k2).squareRoot()) + k2)
    }

    /// Distance s₁₂/b and reduced length m₁₂/b between two points on a geodesic, given
    /// their arc lengths σ₁, σ₂ on the auxiliary sphere (as sines and cosines) and
    /// dₙ = √(1 + e′² sin²β) at each end.
    func lengths(eps: Double, sig12: Double,
                 ssig1: Double, csig1: Double, dn1: Double,
                 ssig2: Double, csig2: Double, dn2: Double) -> (s12b: Double, m12b: Double) {
        let a1m1 = GeodesicSeries.a1m1(eps), c1 = GeodesicSeries.c1(eps)
        let a2m1 = GeodesicSeries.a2m1(eps), c2 = GeodesicSeries.c2(eps)
        let m0 = a1m1 - a2m1
        let a1 = 1 + a1m1, a2 = 1 + a2m1
        let b1 = c1.value(sin: ssig2, cos: csig2) - c1.value(sin: ssig1, cos: csig1)
        let b2 = c2.value(sin: ssig2, cos: csig2) - c2.value(sin: ssig1, cos: csig1)
        let s12b = a1 * (sig12 + b1)
        let j12 = m0 * sig12 + (a1 * b1 - a2 * b2)
        // The parentheses pair the products that cancel exactly for coincident points.
        let m12b = dn2 * (csig1 * ssig2) - dn1 * (ssig1 * csig2) - csig1 * csig2 * j12
        return (s12b, m12b)
    }
}

/// The coefficients c₁…c₆ of a Fourier sine series Σ cₖ sin(2kσ).
///
/// Stored as six plain fields rather than an array so evaluating a geodesic allocates nothing.
struct SineSeries {
    var c1, c2, c3, c4, c5, c6: Double

    /// The series at σ, given sin σ and cos σ, by Clenshaw summation (one sin and cos
    /// instead of six).
    func value(sin s: Double, cos c: Double) -> Double {
        let twoCos2 = 2 * (c - s) * (c + s)
        let b6 = c6
        let b5 = twoCos2 * b6 + c5
        let b4 = twoCos2 * b5 - b6 + c4
        let b3 = twoCos2 * b4 - b5 + c3
        let b2 = twoCos2 * b3 - b4 + c2
        let b1 = twoCos2 * b2 - b3 + c1
        return 2 * s * c * b1
    }
}

/// Series expansions in ε for the distance and reduced-length integrals I₁(σ) and I₂(σ),
/// truncated at ε⁶ (Karney 2013; A₂ as corrected in the paper's addenda).
///
/// Here ε = (√(1+k²) − 1)/(√(1+k²) + 1) with k = e′ cos α₀, so ε < 0.0017 for WGS-84 and the
/// truncation error is below round-off: ε⁷ ≈ 4e-20.
enum GeodesicSeries {
    /// A₁ − 1, where s/b = A₁ (σ + Σ C₁ₖ sin 2kσ). The (1 − ε) factor is divided out last
    /// because the polynomial in ε² converges faster than the raw series.
    static func a1m1(_ eps: Double) -> Double {
        let e2 = eps * eps
        let t = e2 * (1.0 / 4 + e2 * (1.0 / 64 + e2 * (1.0 / 256)))
        return (t + eps) / (1 - eps)
    }

    /// C₁ₖ: distance in terms of the spherical arc length σ.
    static func c1(_ eps: Double) -> SineSeries {
        let e2 = eps * eps
        let e3 = e2 * eps, e4 = e2 * e2
        return SineSeries(
            c1: eps * (-1.0 / 2 + e2 * (3.0 / 16 + e2 * (-1.0 / 32))),
            c2: e2 * (-1.0 / 16 + e2 * (1.0 / 32 + e2 * (-9.0 / 2048))),
            c3: e3 * (-1.0 / 48 + e2 * (3.0 / 256)),
            c4: e4 * (-5.0 / 512 + e2 * (3.0 / 512)),
            c5: e4 * eps * (-7.0 / 1280),
            c6: e4 * e2 * (-7.0 / 2048))
    }

    /// C′₁ₖ: the reversion of the C₁ series, giving σ from τ = s / (b A₁) without iterating.
    static func c1p(_ eps: Double) -> SineSeries {
        let e2 = eps * eps
        let e3 = e2 * eps, e4 = e2 * e2
        return SineSeries(
            c1: eps * (1.0 / 2 + e2 * (-9.0 / 32 + e2 * (205.0 / 1536))),
            c2: e2 * (5.0 / 16 + e2 * (-37.0 / 96 + e2 * (1335.0 / 4096))),
            c3: e3 * (29.0 / 96 + e2 * (-75.0 / 128)),
            c4: e4 * (539.0 / 1536 + e2 * (-2391.0 / 2560)),
            c5: e4 * eps * (3467.0 / 7680),
            c6: e4 * e2 * (38081.0 / 61440))
    }

    /// A₂ − 1 for the reduced-length integral I₂; the (1 + ε) factor is divided out last.
    static func a2m1(_ eps: Double) -> Double {
        let e2 = eps * eps
        let t = e2 * (-3.0 / 4 + e2 * (-7.0 / 64 + e2 * (-11.0 / 256)))
        return (t - eps) / (1 + eps)
    }

    /// C₂ₖ for the reduced-length integral I₂.
    static func c2(_ eps: Double) -> SineSeries {
        let e2 = eps * eps
        let e3 = e2 * eps, e4 = e2 * e2
        return SineSeries(
            c1: eps * (1.0 / 2 + e2 * (1.0 / 16 + e2 * (1.0 / 32))),
            c2: e2 * (3.0 / 16 + e2 * (1.0 / 32 + e2 * (35.0 / 2048))),
            c3: e3 * (5.0 / 48 + e2 * (5.0 / 256)),
            c4: e4 * (35.0 / 512 + e2 * (7.0 / 512)),
            c5: e4 * eps * (63.0 / 1280),
            c6: e4 * e2 * (77.0 / 2048))
    }
}

import Foundation

/// The root find at the heart of the inverse problem: the initial azimuth α₁ whose geodesic
/// reaches the target longitude. Inputs are in the canonical arrangement set up by `inverse`
/// (β₁ ≤ 0, |β₂| ≤ |β₁|, 0 ≤ λ₁₂ ≤ π), as sines and cosines of reduced latitudes β.
extension GeodesicSolver {
    struct InverseStart {
        /// Starting guess for α₁ (or the answer, for short lines).
        var salp1: Double
        var calp1: Double
        /// Set when the line is so short that the spherical solution is already exact.
        var shortLine: (sig12: Double, salp2: Double, calp2: Double, dnm: Double)?
    }

    /// A starting azimuth for Newton's method.
    ///
    /// Mostly the great-circle azimuth on the auxiliary sphere. Near the antipode that guess
    /// is poor (many azimuths lead almost to the same point), so there the problem is
    /// rescaled around the antipode and α₁ estimated from the astroid equation (Karney 2013).
    /// That start is what lets the iteration converge where Vincenty's does not.
    func inverseStart(sbet1: Double, cbet1: Double, sbet2: Double, cbet2: Double,
                      lam12: Double, slam12: Double, clam12: Double) -> InverseStart {
        // β₁₂ = β₂ − β₁ in [0, π); β₁₂ₐ = β₂ + β₁ in (−π, 0].
        let sbet12 = sbet2 * cbet1 - cbet2 * sbet1
        let cbet12 = cbet2 * cbet1 + sbet2 * sbet1
        let sbet12a = sbet2 * cbet1 + cbet2 * sbet1
        let isShort = cbet12 >= 0 && sbet12 < 0.5 && cbet2 * lam12 < 0.5
        var somg12: Double, comg12: Double
        var dnm = 1.0
        if isShort {
            // Scale longitude to the sphere with the mean latitude's radius of curvature.
            var sbetm2 = (sbet1 + sbet2) * (sbet1 + sbet2)
            sbetm2 /= sbetm2 + (cbet1 + cbet2) * (cbet1 + cbet2)
            dnm = (1 + ep2 * sbetm2).squareRoot()
            let omg12 = lam12 / (f1 * dnm)
            somg12 = sin(omg12); comg12 = cos(omg12)
        } else {
            somg12 = slam12; comg12 = clam12
        }

        var salp1 = cbet2 * somg12
        var calp1 = comg12 >= 0
            ? sbet12 + cbet2 * sbet1 * somg12 * somg12 / (1 + comg12)
            : sbet12a - cbet2 * sbet1 * somg12 * somg12 / (1 - comg12)
        let ssig12 = hypot(salp1, calp1)
        let csig12 = sbet1 * sbet2 + cbet1 * cbet2 * comg12
        var shortLine: (Double, Double, Double, Double)?

        if isShort && ssig12 < shortLineLimit {
            var salp2 = cbet1 * somg12
            var calp2 = sbet12 - cbet1 * sbet2 * (comg12 >= 0 ? somg12 * somg12 / (1 + comg12) : 1 - comg12)
            (salp2, calp2) = GeoMath.normalized(salp2, calp2)
            shortLine = (atan2(ssig12, csig12), salp2, calp2, dnm)
        } else if abs(n) > 0.1 || csig12 >= 0 || ssig12 >= 6 * abs(n) * .pi * cbet1 * cbet1 {
            // Far enough from the antipode for the spherical guess to do.
        } else {
            // Near the antipode: coordinates x (longitude) and y (latitude) scaled so the
            // antipode is the origin and the end of the cut (beyond which geodesics from
            // point 1 stop being shortest) is at x = -1, y = 0.
            let lam12x = atan2(-slam12, -clam12)  // λ₁₂ − π
            // The geodesics fanning out towards the antipode start due east or west, where
            // cos α₀ = |sin β₁|; their longitude shortfall sets the scale of the region.
            let lamScale = f * cbet1 * a3f(epsilon(cosAlpha0: sbet1)) * .pi
            let betScale = lamScale * cbet1
            let x = lam12x / lamScale
            let y = sbet12a / betScale
            if y > -Self.tol1 && x > -1 - Self.xThreshold {
                // On or next to the cut the meridional-ish solution is simple.
                salp1 = min(1, -x)
                calp1 = -(1 - salp1 * salp1).squareRoot()
            } else {
                // Estimate the spherical ω₁₂ from the astroid, then α₁ from ω₁₂; estimating
                // ω₁₂ rather than α₁ directly saves Newton steps. ω₁₂ is close to π, so work
                // with its supplement.
                let k = Self.astroid(x, y)
                let omg12a = lamScale * (-x * k / (1 + k))
                somg12 = sin(omg12a); comg12 = -cos(omg12a)
                salp1 = cbet2 * somg12
                calp1 = sbet12a - cbet2 * sbet1 * somg12 * somg12 / (1 - comg12)
            }
        }
        // Written so that NaN falls through to the normalisation.
        if !(salp1 <= 0) {
            (salp1, calp1) = GeoMath.normalized(salp1, calp1)
        } else {
            salp1 = 1; calp1 = 0
        }
        return InverseStart(salp1: salp1, calp1: calp1, shortLine: shortLine)
    }

    /// The positive root k of k⁴ + 2k³ − (x² + y² − 1)k² − 2y²k − y² = 0 (Karney 2013).
    static func astroid(_ x: Double, _ y: Double) -> Double {
        let p = x * x, q = y * y
        let r = (p + q - 1) / 6
        // y = 0 with |x| ≤ 1: the root is 0 (the cut itself).
        if q == 0 && r <= 0 { return 0 }
        // Multiplying through by r³ and r avoids dividing by r = 0.
        let s = p * q / 4
        let r2 = r * r, r3 = r * r2
        // Zero on the evolute p^(1/3) + q^(1/3) = 1, where the cubic has a double root.
        let disc = s * (s + 2 * r3)
        var u = r
        if disc >= 0 {
            var t3 = s + r3
            // The sign of the root is chosen for the larger |t3|; less cancellation.
            t3 += t3 < 0 ? -disc.squareRoot() : disc.squareRoot()
            let t = cbrt(t3)
            u += t + (t != 0 ? r2 / t : 0)
        } else {
            // Three real roots; take the one without cancellation (disc < 0 implies r < 0).
            let angle = atan2((-disc).squareRoot(), -(s + r3))
            u += 2 * r * cos(angle / 3)
        }
        let v = (u * u + q).squareRoot()
        let uv = u < 0 ? q / (v - u) : u + v
        let w = (uv - q) / (2 * v)
        return uv / ((uv + w * w).squareRoot() + w)
    }

    /// One evaluation of the longitude reached by the geodesic leaving point 1 at α₁.
    struct Lambda12 {
        /// λ₁₂(α₁) minus the target longitude difference: the residual to drive to zero.
        var residual: Double
        /// d residual / d α₁, or nil when not requested.
        var derivative: Double?
        var salp2, calp2, sig12, ssig1, csig1, ssig2, csig2, eps: Double
    }

    func lambda12(sbet1: Double, cbet1: Double, dn1: Double,
                  sbet2: Double, cbet2: Double, dn2: Double,
                  salp1: Double, calp1 calp1In: Double,
                  slam120: Double, clam120: Double, wantDerivative: Bool) -> Lambda12 {
        // An equatorial start heading due east was handled by the caller; nudge it off the
        // equator so the formulas below do not divide by zero.
        let calp1 = sbet1 == 0 && calp1In == 0 ? -Self.tiny : calp1In
        // Clairaut: sin α₀ = sin α₁ cos β₁.
        let salp0 = salp1 * cbet1
        let calp0 = hypot(calp1, salp1 * sbet1)

        // tan β₁ = tan σ₁ cos α₁ and tan ω₁ = sin α₀ tan σ₁.
        var ssig1 = sbet1, csig1 = calp1 * cbet1
        let somg1 = salp0 * sbet1, comg1 = calp1 * cbet1
        (ssig1, csig1) = GeoMath.normalized(ssig1, csig1)

        // The |β₂| = |β₁| case is forced symmetric: formulas that are equal analytically
        // could otherwise differ by an ulp and give Newton a spurious slope.
        let salp2 = cbet2 != cbet1 ? salp0 / cbet2 : salp1
        let calp2 = cbet2 != cbet1 || abs(sbet2) != -sbet1
            ? (calp1 * cbet1 * calp1 * cbet1
                + (cbet1 < -sbet1 ? (cbet2 - cbet1) * (cbet1 + cbet2) : (sbet1 - sbet2) * (sbet1 + sbet2)))
                .squareRoot() / cbet2
            : abs(calp1)
        var ssig2 = sbet2, csig2 = calp2 * cbet2
        let somg2 = salp0 * sbet2, comg2 = calp2 * cbet2
        (ssig2, csig2) = GeoMath.normalized(ssig2, csig2)

        // σ₁₂ and ω₁₂ limited to [0, π].
        let sig12 = atan2(max(0, csig1 * ssig2 - ssig1 * csig2) + 0, csig1 * csig2 + ssig1 * ssig2)
        let somg12 = max(0, comg1 * somg2 - somg1 * comg2) + 0
        let comg12 = comg1 * comg2 + somg1 * somg2
        // η = ω₁₂ − λ₁₂(target), computed as one angle to keep its low bits.
        let eta = atan2(somg12 * clam120 - comg12 * slam120, comg12 * clam120 + somg12 * slam120)
        let eps = epsilon(cosAlpha0: calp0)
        let c3 = c3f(eps)
        let b312 = c3.value(sin: ssig2, cos: csig2) - c3.value(sin: ssig1, cos: csig1)
        let domg12 = -f * a3f(eps) * salp0 * (sig12 + b312)

        var derivative: Double?
        if wantDerivative {
            if calp2 == 0 {
                derivative = -2 * f1 * dn1 / sbet1
            } else {
                let (_, m12b) = lengths(eps: eps, sig12: sig12, ssig1: ssig1, csig1: csig1, dn1: dn1,
                                        ssig2: ssig2, csig2: csig2, dn2: dn2)
                derivative = m12b * f1 / (calp2 * cbet2)
            }
        }
        return Lambda12(residual: eta + domg12, derivative: derivative,
                        salp2: salp2, calp2: calp2, sig12: sig12,
                        ssig1: ssig1, csig1: csig1, ssig2: ssig2, csig2: csig2, eps: eps)
    }

    /// Newton's method on α₁, safeguarded by bisection.
    ///
    /// λ₁₂(α₁) − λ₁₂ has exactly one root in (0, π) with positive slope there, so a bracket
    /// [α₁ₐ, α₁ᵦ] around it is kept and shrunk at every evaluation. A Newton step that goes
    /// downhill or leaves (0, π) is replaced by the bracket's midpoint. On WGS-84 Newton
    /// alone converges in a few steps; the bracket guarantees termination regardless.
    func solveForAzimuth(sbet1: Double, cbet1: Double, dn1: Double,
                         sbet2: Double, cbet2: Double, dn2: Double,
                         salp1: inout Double, calp1: inout Double,
                         slam12: Double, clam12: Double) -> Lambda12 {
        var salp1a = Self.tiny, calp1a = 1.0, salp1b = Self.tiny, calp1b = -1.0
        var tripNewton = false, tripBisection = false
        var last: Lambda12!
        for iteration in 0...Self.maxIterations {
            last = lambda12(sbet1: sbet1, cbet1: cbet1, dn1: dn1, sbet2: sbet2, cbet2: cbet2, dn2: dn2,
                            salp1: salp1, calp1: calp1, slam120: slam12, clam120: clam12,
                            wantDerivative: iteration < Self.maxNewton)
            let v = last.residual
            // Written as !(≥) so that NaN stops the loop.
            if tripBisection || !(abs(v) >= (tripNewton ? 8 : 1) * Self.tol0) || iteration == Self.maxIterations {
                break
            }
            if v > 0 && (iteration > Self.maxNewton || calp1 / salp1 > calp1b / salp1b) {
                salp1b = salp1; calp1b = calp1
            } else if v < 0 && (iteration > Self.maxNewton || calp1 / salp1 < calp1a / salp1a) {
                salp1a = salp1; calp1a = calp1
            }
            if iteration < Self.maxNewton, let dv = last.derivative, dv > 0 {
                let dalp1 = -v / dv
                // Checked first: sin of a huge step would be slow and meaningless.
                if abs(dalp1) < .pi {
                    let sdalp1 = sin(dalp1), cdalp1 = cos(dalp1)
                    let nsalp1 = salp1 * cdalp1 + calp1 * sdalp1
                    if nsalp1 > 0 {
                        calp1 = calp1 * cdalp1 - salp1 * sdalp1
                        salp1 = nsalp1
                        (salp1, calp1) = GeoMath.normalized(salp1, calp1)
                        // Convergence can be linear where the slope vanishes, so from here
                        // on insist on an epsilon-sized residual, not a sqrt(epsilon) one.
                        tripNewton = abs(v) <= 16 * Self.tol0
                        continue
                    }
                }
            }
            salp1 = (salp1a + salp1b) / 2
            calp1 = (calp1a + calp1b) / 2
            (salp1, calp1) = GeoMath.normalized(salp1, calp1)
            tripNewton = false
            tripBisection = abs(salp1a - salp1) + (calp1a - calp1) < Self.tol0
                || abs(salp1 - salp1b) + (calp1 - calp1b) < Self.tol0
        }
        return last
    }
}

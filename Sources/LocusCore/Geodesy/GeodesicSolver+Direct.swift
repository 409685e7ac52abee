import Foundation

extension GeodesicSolver {
    /// The far end of a geodesic.
    struct DirectSolution {
        /// Degrees; longitude in [-180, 180].
        var latitude: Double
        var longitude: Double
        /// Forward azimuth at the far end, degrees clockwise from north in [-180, 180].
        var azimuth2: Double
    }

    /// Solves the direct problem: where a geodesic from (lat1, lon1) leaving at azimuth `azi1`
    /// (degrees) ends after `s12` metres (negative goes backwards).
    ///
    /// No iteration is needed: distance maps to arc length σ on the auxiliary sphere through
    /// the reverted series C′₁, and σ maps back to latitude, longitude and azimuth in closed
    /// form (Karney 2013).
    func direct(lat1 latitude1: Double, lon1: Double, azi1 azimuth: Double, s12: Double) -> DirectSolution {
        let azi1 = GeoMath.normalize(azimuth)
        let (salp1, calp1) = GeoMath.sinCos(degrees: GeoMath.round(azi1))
        let lat1 = GeoMath.latitudeOrNaN(latitude1)
        var (sbet1, cbet1) = GeoMath.sinCos(degrees: GeoMath.round(lat1))
        (sbet1, cbet1) = GeoMath.normalized(sbet1 * f1, cbet1)
        // A tiny positive cos β at the poles lets the azimuth choose the meridian to leave by.
        cbet1 = max(Self.tiny, cbet1)

        // Clairaut: α₀ is the azimuth where the geodesic crosses the equator northwards.
        let salp0 = salp1 * cbet1
        let calp0 = hypot(calp1, salp1 * sbet1)
        // σ₁ and ω₁ measured from that crossing: tan β₁ = tan σ₁ cos α₁, tan ω₁ = sin α₀ tan σ₁.
        var ssig1 = sbet1, csig1 = sbet1 != 0 || calp1 != 0 ? cbet1 * calp1 : 1
        let somg1 = salp0 * sbet1, comg1 = csig1
        (ssig1, csig1) = GeoMath.normalized(ssig1, csig1)

        let eps = epsilon(cosAlpha0: calp0)
        let a1 = 1 + GeodesicSeries.a1m1(eps)
        let b11 = GeodesicSeries.c1(eps).value(sin: ssig1, cos: csig1)
        // τ₁ = σ₁ + B₁₁: the start in the "distance-like" variable τ = s / (b A₁).
        let stau1 = ssig1 * cos(b11) + csig1 * sin(b11)
        let ctau1 = csig1 * cos(b11) - ssig1 * sin(b11)

        let tau12 = s12 / (b * a1)
        let stau12 = sin(tau12), ctau12 = cos(tau12)
        let b12 = -GeodesicSeries.c1p(eps).value(sin: stau1 * ctau12 + ctau1 * stau12,
                                                 cos: ctau1 * ctau12 - stau1 * stau12)
        let sig12 = tau12 - (b12 - b11)
        let ssig12 = sin(sig12), csig12 = cos(sig12)
        let ssig2 = ssig1 * csig12 + csig1 * ssig12
        var csig2 = csig1 * csig12 - ssig1 * ssig12

        let sbet2 = calp0 * ssig2
        var cbet2 = hypot(salp0, calp0 * csig2)
        if cbet2 == 0 {
            // Arrived exactly at a pole on a meridian; keep the azimuth defined.
            cbet2 = Self.tiny
            csig2 = Self.tiny
        }
        let salp2 = salp0, calp2 = calp0 * csig2

        let somg2 = salp0 * ssig2, comg2 = csig2
        let omg12 = atan2(somg2 * comg1 - comg2 * somg1, comg2 * comg1 + somg2 * somg1)
        let c3 = c3f(eps)
        let b31 = c3.value(sin: ssig1, cos: csig1)
        let lam12 = omg12 - f * salp0 * a3f(eps) * (sig12 + (c3.value(sin: ssig2, cos: csig2) - b31))
        let lon12 = lam12 / GeoMath.degree

        return DirectSolution(
            latitude: GeoMath.atan2Degrees(sbet2, f1 * cbet2),
            longitude: GeoMath.normalize(GeoMath.normalize(lon1) + GeoMath.normalize(lon12)),
            azimuth2: GeoMath.atan2Degrees(salp2, calp2))
    }
}

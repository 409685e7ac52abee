import Foundation

extension GeodesicSolver {
    /// The shortest geodesic between two points.
    struct InverseSolution {
        /// Length, metres (≥ 0).
        var distance: Double
        /// Forward azimuth at each end, degrees clockwise from north in [-180, 180].
        var azimuth1: Double
        var azimuth2: Double
    }

    /// Solves the inverse problem: the shortest path from (lat1, lon1) to (lat2, lon2), degrees.
    ///
    /// The points are first brought to a canonical arrangement (point 1 the farther from the
    /// equator and in the southern hemisphere, point 2 east of it), which leaves few quadrant
    /// cases and keeps results symmetric under swapping the points; it is undone on the
    /// azimuths at the end.
    func inverse(lat1 latitude1: Double, lon1: Double, lat2 latitude2: Double, lon2: Double) -> InverseSolution {
        var (lon12, lon12s) = GeoMath.difference(lon1, lon2)
        var lonSign: Double = lon12.sign == .minus ? -1 : 1
        lon12 *= lonSign
        lon12s *= lonSign
        let lam12 = lon12 * GeoMath.degree
        let (slam12, clam12) = GeoMath.sinCos(degrees: lon12, plus: lon12s)
        let lon12Supplement = (180 - lon12) - lon12s

        var lat1 = GeoMath.round(GeoMath.latitudeOrNaN(latitude1))
        var lat2 = GeoMath.round(GeoMath.latitudeOrNaN(latitude2))
        // A NaN latitude ends up as lat1, so it poisons every branch below.
        let swapSign: Double = abs(lat1) < abs(lat2) || lat2.isNaN ? -1 : 1
        if swapSign < 0 {
            lonSign = -lonSign
            swap(&lat1, &lat2)
        }
        let latSign: Double = lat1.sign == .minus ? 1 : -1
        lat1 *= latSign
        lat2 *= latSign
        // Now 0 ≤ lon12 ≤ 180, -90 ≤ lat1 ≤ -0 and lat1 ≤ lat2 ≤ -lat1.

        var (sbet1, cbet1) = GeoMath.sinCos(degrees: lat1)
        (sbet1, cbet1) = GeoMath.normalized(sbet1 * f1, cbet1)
        // A tiny positive cos β at the poles keeps the azimuth defined by the longitude.
        cbet1 = max(Self.tiny, cbet1)
        var (sbet2, cbet2) = GeoMath.sinCos(degrees: lat2)
        (sbet2, cbet2) = GeoMath.normalized(sbet2 * f1, cbet2)
        cbet2 = max(Self.tiny, cbet2)

        // When |β₂| = |β₁| up to round-off, make it exact: Lambda12 relies on the difference
        // of the two to place α₂, and a spurious 1-ulp difference derails Newton's method.
        if cbet1 < -sbet1 {
            if cbet2 == cbet1 { sbet2 = Double(signOf: sbet2, magnitudeOf: sbet1) }
        } else if abs(sbet2) == -sbet1 {
            cbet2 = cbet1
        }

        let dn1 = (1 + ep2 * sbet1 * sbet1).squareRoot()
        let dn2 = (1 + ep2 * sbet2 * sbet2).squareRoot()

        var salp1 = 0.0, calp1 = 0.0, salp2 = 0.0, calp2 = 0.0
        var s12 = 0.0
        var meridian = lat1 == -90 || slam12 == 0

        if meridian {
            // Both points lie on one meridian (or point 1 is a pole): head straight for the
            // target longitude; the path may still cross a pole.
            calp1 = clam12; salp1 = slam12
            calp2 = 1; salp2 = 0
            let ssig1 = sbet1, csig1 = calp1 * cbet1
            let ssig2 = sbet2, csig2 = calp2 * cbet2
            var sig12 = atan2(max(0, csig1 * ssig2 - ssig1 * csig2) + 0, csig1 * csig2 + ssig1 * ssig2)
            var (s12b, m12b) = lengths(eps: n, sig12: sig12, ssig1: ssig1, csig1: csig1, dn1: dn1,
                                       ssig2: ssig2, csig2: csig2, dn2: dn2)
            // A negative reduced length would mean the meridian is not the shortest path;
            // that only happens on prolate ellipsoids, but the check costs nothing.
            if sig12 < 1 || m12b >= 0 {
                if sig12 < 3 * Self.tiny || (sig12 < Self.tol0 && (s12b < 0 || m12b < 0)) {
                    sig12 = 0; s12b = 0; m12b = 0
                }
                s12 = s12b * b
            } else {
                meridian = false
            }
        }

        if !meridian && sbet1 == 0 && (f <= 0 || lon12Supplement >= f * 180) {
            // Both points on the equator and not so close to antipodal that the shortest
            // path leaves the equator for the pole: follow the equator.
            calp1 = 0; calp2 = 0; salp1 = 1; salp2 = 1
            s12 = a * lam12
        } else if !meridian {
            let start = inverseStart(sbet1: sbet1, cbet1: cbet1, sbet2: sbet2, cbet2: cbet2,
                                     lam12: lam12, slam12: slam12, clam12: clam12)
            salp1 = start.salp1; calp1 = start.calp1
            if let shortLine = start.shortLine {
                salp2 = shortLine.salp2; calp2 = shortLine.calp2
                s12 = shortLine.sig12 * b * shortLine.dnm
            } else {
                let solution = solveForAzimuth(sbet1: sbet1, cbet1: cbet1, dn1: dn1,
                                               sbet2: sbet2, cbet2: cbet2, dn2: dn2,
                                               salp1: &salp1, calp1: &calp1,
                                               slam12: slam12, clam12: clam12)
                salp2 = solution.salp2; calp2 = solution.calp2
                let (s12b, _) = lengths(eps: solution.eps, sig12: solution.sig12,
                                        ssig1: solution.ssig1, csig1: solution.csig1, dn1: dn1,
                                        ssig2: solution.ssig2, csig2: solution.csig2, dn2: dn2)
                s12 = s12b * b
            }
        }

        if swapSign < 0 {
            swap(&salp1, &salp2)
            swap(&calp1, &calp2)
        }
        salp1 *= swapSign * lonSign; calp1 *= swapSign * latSign
        salp2 *= swapSign * lonSign; calp2 *= swapSign * latSign
        return InverseSolution(distance: 0 + s12,  // + 0 turns -0 into 0
                               azimuth1: GeoMath.atan2Degrees(salp1, calp1),
                               azimuth2: GeoMath.atan2Degrees(salp2, calp2))
    }
}

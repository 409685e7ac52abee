import Foundation
import LocusCore

/// Certain answers to `CircleRegion.contains` for almost every point, from two multiplications
/// and a compare, so that only points within about 1e-4 of the radius need the geodesic.
///
/// On the ellipsoid, in geodetic coordinates, ds² = (M dφ)² + (N cos φ dλ)², with M the
/// meridional radius of curvature (smallest at the equator, growing poleward) and N cos φ the
/// radius of the parallel (largest at the equator). Every point within `radius` (plus a
/// margin) of the centre lies within Δ = (radius + margin) / M(0) of its latitude, so in that
/// latitude band B:
/// - any path between the centre and a point, in particular the geodesic when it is no longer
///   than the radius, is at least `lower` = √((M_min Δφ)² + (Ncos_min Δλ)²) long (Minkowski's
///   inequality on the integral of ds; Δλ the shorter longitude difference). So
///   `lower` > radius + margin means certainly outside;
/// - the straight lon/lat path to a point in B is at most `upper` = √((M_max Δφ)² + (Ncos_max Δλ)²)
///   long, and `upper` ≤ ρ · `lower` with ρ the larger of M_max / M_min and Ncos_max / Ncos_min.
///   So ρ · `lower` ≤ radius − margin means certainly inside (and such a point is in B).
/// Minima and maxima are over B. The margin, radius · 1e-9 + 1 µm, covers rounding here and the
/// ~15 nm error of the Karney distance `CircleRegion.contains` compares: where these bounds
/// answer, the geodesic test answers the same. `compact` stores them in 24 bytes per grid cell,
/// rounded so that this stays true. For a 200 m circle at 52° ρ − 1 is ~1e-4, so ~2 cm
/// either side of the boundary is left to the geodesic; bands containing a pole have
/// Ncos_min = 0 and decide only "outside".
struct CircleDistanceBounds {
    /// Centre, degrees; longitude in [-180, 180).
    let latitude: Double
    let longitude: Double
    /// Metres per degree over band B: M_min, M_max (along a meridian), Ncos_min, Ncos_max
    /// (along a parallel), each rounded outward.
    let latitudeLow, latitudeHigh, longitudeLow, longitudeHigh: Double
    let radius: Double
    /// Metres either side of the radius left to the geodesic whatever the bounds say.
    let margin: Double

    init(_ circle: CircleRegion) {
        let a = Geodesic.equatorialRadius, e2 = Geodesic.flattening * (2 - Geodesic.flattening)
        let degree = Double.pi / 180
        let r = circle.radius
        margin = r * 1e-9 + 1e-6
        // Metres per degree along a meridian, M(φ)·π/180, and along a parallel, N(φ) cos φ·π/180.
        func meridional(_ phi: Double) -> Double {
            let s = sin(phi * degree), w = (1 - e2 * s * s).squareRoot()
            return a * (1 - e2) / (w * w * w) * degree
        }
        func parallel(_ phi: Double, cosine: Double) -> Double {
            let s = sin(phi * degree)
            return a * cosine / (1 - e2 * s * s).squareRoot() * degree
        }
        // Band B, padded by 1e-6 relative: points `compact`'s rounded scales call inside must
        // lie in it too (their lower bound on M is ~1e-7 below M(0) at worst).
        let halfBand = (r + margin) / (a * (1 - e2) * degree) * (1 + 1e-6)
        let lo = max(-90, circle.center.latitude - halfBand), hi = min(90, circle.center.latitude + halfBand)
        let nearest = lo <= 0 && hi >= 0 ? 0 : min(abs(lo), abs(hi))  // |φ| closest to the equator
        let farthest = max(abs(lo), abs(hi))
        // Relative 1e-12 and absolute 1e-15 (on the cosine) outward: rounding in sin, cos, sqrt.
        latitudeLow = meridional(nearest) * (1 - 1e-12)
        latitudeHigh = meridional(farthest) * (1 + 1e-12)
        let cosLow = farthest >= 90 ? 0 : max(0, cos(farthest * degree) - 1e-15)
        let cosHigh = min(1, cos(nearest * degree) + 1e-15)
        longitudeLow = parallel(farthest, cosine: cosLow) * (1 - 1e-12)
        longitudeHigh = parallel(nearest, cosine: cosHigh) * (1 + 1e-12)
        latitude = circle.center.latitude
        longitude = PolygonRegion.normalizedLongitude(circle.center.longitude)
        radius = r
    }

    /// The bounds in 24 bytes for a grid cell whose south-west corner is at (`cornerLatitude`,
    /// `cornerLongitude`): the centre as `Float` offsets from the corner (precise to ~1e-9° near
    /// it), scales and thresholds as `Float`s rounded so that every answer stays certain.
    func compact(cornerLatitude: Double, cornerLongitude: Double) -> CompactCircleBounds {
        let latitudeOffset = latitude - cornerLatitude, longitudeOffset = longitude - cornerLongitude
        let storedLatitude = Float(latitudeOffset), storedLongitude = Float(longitudeOffset)
        let latitudeScale2 = Self.floatDown(latitudeLow * latitudeLow)
        let longitudeScale2 = Self.floatDown(longitudeLow * longitudeLow)
        // The bounds as stored: `lower` with the rounded scales, from the rounded centre.
        let latitudeScale = Double(latitudeScale2).squareRoot() * (1 - 1e-12)
        let longitudeScale = Double(longitudeScale2).squareRoot() * (1 - 1e-12)
        // How far (in `lower`'s norm) the stored centre is from the true one: moves `lower` by
        // at most this (triangle inequality), plus ~1e-19° for the corner subtraction.
        let shift = (latitudeScale * (abs(Double(storedLatitude) - latitudeOffset) + 1e-15)
            + longitudeScale * (abs(Double(storedLongitude) - longitudeOffset) + 1e-15)) * (1 + 1e-9)
        let outside = radius + margin + shift
        let rho = max(latitudeHigh / latitudeScale, longitudeScale > 0 ? longitudeHigh / longitudeScale : .infinity) * (1 + 1e-12)
        let inside = rho.isFinite ? (radius - margin) / rho * (1 - 1e-12) - shift : -1
        return CompactCircleBounds(latitudeOffset: storedLatitude, longitudeOffset: storedLongitude,
                                   latitudeScale2: latitudeScale2, longitudeScale2: longitudeScale2,
                                   outside2: Self.floatUp(outside * outside),
                                   inside2: inside > 0 ? Self.floatDown(inside * inside * (1 - 1e-12)) : -1)
    }

    /// The largest `Float` ≤ `x`, and the smallest ≥ `x`.
    static func floatDown(_ x: Double) -> Float { let f = Float(x); return Double(f) > x ? f.nextDown : f }
    static func floatUp(_ x: Double) -> Float { let f = Float(x); return Double(f) < x ? f.nextUp : f }
}

/// `CircleDistanceBounds` as stored in a grid cell, relative to the cell's south-west corner.
@usableFromInline
struct CompactCircleBounds {
    @usableFromInline let latitudeOffset: Float
    @usableFromInline let longitudeOffset: Float
    /// Lower bounds on squared metres per degree.
    @usableFromInline let latitudeScale2: Float
    @usableFromInline let longitudeScale2: Float
    /// `lower`² above this: outside.
    @usableFromInline let outside2: Float
    /// `lower`² at or below this: inside; negative when never.
    @usableFromInline let inside2: Float

    /// true / false when certain, nil when only the geodesic can tell.
    /// - Parameters: the point's latitude and longitude minus the cell corner's, the
    ///   longitude taken from a point in [-180, 180).
    @inlinable @inline(__always)
    func contains(latitudeFromCorner lat: Double, longitudeFromCorner lon: Double) -> Bool? {
        let dLat = lat - Double(latitudeOffset)
        var dLon = lon - Double(longitudeOffset)
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        let lower2 = Double(latitudeScale2) * dLat * dLat + Double(longitudeScale2) * dLon * dLon
        if lower2 > Double(outside2) { return false }
        if lower2 <= Double(inside2) { return true }
        return nil
    }
}

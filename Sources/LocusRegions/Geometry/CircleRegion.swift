import Foundation
import LocusCore

/// A geodesic circle on the WGS-84 ellipsoid: every point whose Karney geodesic distance
/// from `center` is at most `radius` metres.
///
/// Works anywhere, including around a pole and across the antimeridian, because membership
/// is a geodesic distance, not a lon/lat test.
public struct CircleRegion: Sendable, Equatable {
    public let center: Coordinate
    /// Metres, > 0.
    public let radius: Double
    /// See `boundingBox`; computed once because `contains` uses it as a cheap reject.
    public let boundingBox: GeoBox

    /// - Throws: `RegionGeometryError` (`.invalidCircle`) for an invalid centre or a radius
    ///   that is not positive and finite, or not below 10 000 km (a circle must not wrap
    ///   past the antipode, where "inside" would stop meaning "near").
    public init(center: Coordinate, radius: Double) throws {
        guard center.isValid, center.latitude.isFinite else {
            throw RegionGeometryError(.invalidCircle, "circle centre \(center.latitude), \(center.longitude) is not a valid position")
        }
        guard radius.isFinite, radius > 0, radius < 10_000_000 else {
            throw RegionGeometryError(.invalidCircle, "circle radius \(radius) m must be positive and below 10 000 km")
        }
        self.center = center
        self.radius = radius
        self.boundingBox = Self.box(center: center, radius: radius)
    }

    /// Whether the geodesic distance from the centre to `c` is ≤ `radius` (boundary inside,
    /// as for polygons). The answer is always the exact (Karney) one; the fast paths below
    /// only skip the geodesic when its answer is certain.
    ///
    /// Points outside `boundingBox` are rejected first. Then, for circles up to 100 km whose
    /// centre is within ±70° latitude, `Geodesic.approximateDistance` decides unless it is
    /// within 0.1 % (+ 1 mm) of the radius: its documented relative error there is at most
    /// 4e-4 (100 km at 60–80°), so outside that band its answer is the exact one. The
    /// Karney inverse is several times slower and is left for points near the boundary.
    public func contains(_ c: Coordinate) -> Bool {
        guard boundingBox.contains(Coordinate(latitude: c.latitude, longitude: PolygonRegion.normalizedLongitude(c.longitude))) else { return false }
        if approximationDecides {
            let d = Geodesic.approximateDistance(from: center, to: c)
            if d < radius - approximationMargin { return true }
            if d > radius + approximationMargin { return false }
        }
        return Geodesic.distance(from: center, to: c) <= radius
    }

    /// Whether `approximateDistance` is accurate enough here to decide away from the boundary
    /// (its error grows with distance and latitude; see `contains`).
    private var approximationDecides: Bool { radius <= 100_000 && abs(center.latitude) <= 70 }
    /// Metres either side of the radius where only the exact geodesic decides.
    private var approximationMargin: Double { radius * 1e-3 + 0.001 }

    /// Exactly `Geodesic.distance(from: center, to: c) - radius`, metres: negative inside.
    public func signedDistance(to c: Coordinate) -> Double {
        Geodesic.distance(from: center, to: c) - radius
    }

    /// A box that contains the whole circle; it may be slightly larger, never smaller.
    ///
    /// Latitudes: the geodesic destinations due north and south (the meridian through the
    /// centre is the circle's axis of symmetry), or the pole itself when the circle
    /// contains it — then all longitudes. Longitudes: the circle's widest point is poleward
    /// of due east, so instead of the destination due east the spherical tangent formula
    /// Δλ = asin(sin σ / cos φ) is used with σ the radius over the polar radius of curvature
    /// (the largest on the ellipsoid, so σ is not underestimated) and a 1 % margin; when
    /// the tangent does not exist (the circle reaches a pole) all longitudes.
    static func box(center: Coordinate, radius: Double) -> GeoBox {
        let north = Geodesic.destination(from: center, bearing: 0, distance: radius).latitude
        let south = Geodesic.destination(from: center, bearing: 180, distance: radius).latitude
        let containsNorthPole = Geodesic.distance(from: center, to: Coordinate(latitude: 90, longitude: 0)) <= radius
        let containsSouthPole = Geodesic.distance(from: center, to: Coordinate(latitude: -90, longitude: 0)) <= radius
        // Destinations round to the nearest bit; pad by ~1 µm of latitude.
        let pad = 1e-8
        let minLat = containsSouthPole ? -90 : max(-90, min(south, center.latitude) - pad)
        let maxLat = containsNorthPole ? 90 : min(90, max(north, center.latitude) + pad)
        let polarRadiusOfCurvature = Geodesic.equatorialRadius / (1 - Geodesic.flattening)
        let sigma = radius / polarRadiusOfCurvature * 1.01
        let cosLat = cos(center.latitude * .pi / 180)
        let ratio = sin(min(sigma, .pi / 2)) / cosLat
        guard !containsNorthPole, !containsSouthPole, ratio < 1, sigma < .pi / 2 else {
            return GeoBox(minLatitude: minLat, maxLatitude: maxLat, minLongitude: -180, maxLongitude: 180)
        }
        let dLon = asin(ratio) * 180 / .pi
        guard dLon < 180 else {
            return GeoBox(minLatitude: minLat, maxLatitude: maxLat, minLongitude: -180, maxLongitude: 180)
        }
        var maxLon = PolygonRegion.normalizedLongitude(center.longitude + dLon)
        if maxLon == -180 { maxLon = 180 }
        return GeoBox(minLatitude: minLat, maxLatitude: maxLat,
                      minLongitude: PolygonRegion.normalizedLongitude(center.longitude - dLon), maxLongitude: maxLon)
    }
}

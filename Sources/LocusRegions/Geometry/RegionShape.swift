import LocusCore

/// The geometry of a monitored region: a geodesic circle or lon/lat polygons with holes.
///
/// All three queries agree on one convention: the boundary belongs to the region
/// (`contains` is true and `signedDistance` is ≤ 0 there), distances are metres on the
/// WGS-84 ellipsoid, negative inside and positive outside — the primitive hysteresis needs
/// ("the whole uncertainty circle past the boundary by min_distance" is
/// `signedDistance > accuracy + minDistance` to leave, `< -(accuracy + minDistance)` to enter).
public enum RegionShape: Sendable, Equatable {
    case circle(CircleRegion)
    /// A GeoJSON Polygon (one polygon) or MultiPolygon (several).
    case polygons(PolygonRegion)

    /// A validated circle; see `CircleRegion.init(center:radius:)`.
    public static func circle(center: Coordinate, radius: Double) throws -> RegionShape {
        .circle(try CircleRegion(center: center, radius: radius))
    }

    /// Validated polygons; see `PolygonRegion.init(polygons:)`.
    public static func polygons(_ polygons: [[[Coordinate]]]) throws -> RegionShape {
        .polygons(try PolygonRegion(polygons: polygons))
    }

    /// Whether `c` is in the region, boundary included. Allocation-free.
    @inlinable
    public func contains(_ c: Coordinate) -> Bool {
        switch self {
        case .circle(let circle): circle.contains(c)
        case .polygons(let polygons): polygons.contains(c)
        }
    }

    /// Signed distance to the boundary, metres: < 0 inside, > 0 outside. Exact (Karney) for
    /// circles; for polygons see `PolygonRegion.signedDistance(to:)` for the method and error.
    public func signedDistance(to c: Coordinate) -> Double {
        switch self {
        case .circle(let circle): circle.signedDistance(to: c)
        case .polygons(let polygons): polygons.signedDistance(to: c)
        }
    }

    /// A box containing the whole region (possibly crossing the antimeridian), for an index.
    public var boundingBox: GeoBox {
        switch self {
        case .circle(let circle): circle.boundingBox
        case .polygons(let polygons): polygons.boundingBox
        }
    }
}

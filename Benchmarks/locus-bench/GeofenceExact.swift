import Foundation
import LocusCore

// BENCHMARK-LOCAL exact geometry: the minimum `locus-bench geofence` needs to count hits, until
// LocusRegions' own geometry (Sources/LocusRegions/Geometry, another branch) replaces it.
// Not library code; nothing outside this benchmark should use it.

/// Circles on the WGS-84 ellipsoid, tested fast and exactly: a local flat-ellipsoid distance
/// (metres per degree from the meridian and prime-vertical radii of curvature at the centre)
/// decides, except in a thin band around the radius where its error could flip the answer;
/// there `Geodesic.distance` (Karney, ~15 nm) decides.
///
/// Error of the local distance: the east–west scale changes with latitude across the circle by
/// a relative Δφ·tan φ (≤ 4e-5 for 200 m at 52.5° N); curvature terms are ~(d/R)² ≈ 1e-9. The
/// band, 2e-4·r + 1 mm, is five times that; `GeofenceBench` checks the claim against Geodesic.
struct GeodesicCircles {
    /// One record per circle, not one array per field: a random point's candidates are cache
    /// misses, and this makes each one miss once.
    struct Circle {
        var latitude, longitude, radius: Double
        /// Metres per degree of latitude / longitude at the centre.
        var metresPerDegreeLatitude, metresPerDegreeLongitude: Double
    }
    var circles: [Circle] = []
    /// Geodesic fallbacks taken (pairs in the band).
    var fallbacks = 0

    init(latitudes: [Double], longitudes: [Double], radii: [Double]) {
        let a = Geodesic.equatorialRadius, f = Geodesic.flattening
        let e2 = f * (2 - f), radian = Double.pi / 180
        for i in radii.indices {
            let phi = latitudes[i] * radian
            let w = (1 - e2 * sin(phi) * sin(phi)).squareRoot()
            let meridian = a * (1 - e2) / (w * w * w), primeVertical = a / w
            circles.append(Circle(latitude: latitudes[i], longitude: longitudes[i], radius: radii[i],
                                  metresPerDegreeLatitude: meridian * radian,
                                  metresPerDegreeLongitude: primeVertical * cos(phi) * radian))
        }
    }

    /// The local flat-ellipsoid distance from circle `i`'s centre, metres.
    @inline(__always)
    func localDistance(_ i: Int, _ lat: Double, _ lon: Double) -> Double {
        let c = circles[i]
        let dy = (lat - c.latitude) * c.metresPerDegreeLatitude
        let dx = (lon - c.longitude) * c.metresPerDegreeLongitude
        return (dx * dx + dy * dy).squareRoot()
    }

    @inline(__always)
    mutating func contains(_ i: Int, _ lat: Double, _ lon: Double) -> Bool {
        let d = localDistance(i, lat, lon), r = circles[i].radius
        let band = 2e-4 * r + 0.001
        if d < r - band { return true }
        if d > r + band { return false }
        fallbacks += 1
        return geodesicDistance(i, lat, lon) <= r
    }

    func geodesicDistance(_ i: Int, _ lat: Double, _ lon: Double) -> Double {
        Geodesic.distance(from: Coordinate(latitude: circles[i].latitude, longitude: circles[i].longitude),
                          to: Coordinate(latitude: lat, longitude: lon))
    }
}

/// geofence_bench.py's planar model, to reproduce its checksums: local equirectangular metres
/// around 52.52 N, 13.405 E on a 6,371 km sphere; circles exact (`within`) or as shapely's
/// 32-gon buffers (quad_segs=8: vertices at multiples of 11.25° on the circle).
enum ShapelyPlanarModel {
    static let latitude0 = 52.52, longitude0 = 13.405
    static let metresPerDegreeLatitude = 6_371_000.0 * Double.pi / 180
    static let metresPerDegreeLongitude = metresPerDegreeLatitude * cos(latitude0 * Double.pi / 180)

    static func offset(_ lat: Double, _ lon: Double, fromLatitude clat: Double, longitude clon: Double) -> (x: Double, y: Double) {
        // Differences of projected values, as the script computes them, for identical rounding.
        let x = (lon - longitude0) * metresPerDegreeLongitude - (clon - longitude0) * metresPerDegreeLongitude
        let y = (lat - latitude0) * metresPerDegreeLatitude - (clat - latitude0) * metresPerDegreeLatitude
        return (x, y)
    }

    static func inCircle(_ lat: Double, _ lon: Double, _ clat: Double, _ clon: Double, _ r: Double) -> Bool {
        let (x, y) = offset(lat, lon, fromLatitude: clat, longitude: clon)
        return x * x + y * y <= r * r
    }

    /// Inside the inscribed 32-gon: the point's distance along its sector's mid-direction is
    /// under the apothem r·cos(π/32).
    static func in32gon(_ lat: Double, _ lon: Double, _ clat: Double, _ clon: Double, _ r: Double) -> Bool {
        let (x, y) = offset(lat, lon, fromLatitude: clat, longitude: clon)
        let step = Double.pi / 16
        let sector = (atan2(y, x) / step).rounded(.down)
        let mid = (sector + 0.5) * step
        return x * cos(mid) + y * sin(mid) < r * cos(step / 2)
    }
}

/// Point in polygon by ray casting (W. R. Franklin's PNPOLY) in plain longitude/latitude, as
/// shapely tests in its planar coordinates: the script's projection is affine in lon/lat, so
/// the answer is the same except for rounding on the boundary itself.
@inline(__always)
func polygonContains(_ lat: Double, _ lon: Double, vertices: UnsafeBufferPointer<SIMD2<Double>>, range: Range<Int>) -> Bool {
    var inside = false
    var j = range.upperBound - 1
    for i in range {
        let vi = vertices[i], vj = vertices[j]  // (latitude, longitude)
        if (vi.x > lat) != (vj.x > lat) {
            if lon < (vj.y - vi.y) * (lat - vi.x) / (vj.x - vi.x) + vi.y { inside.toggle() }
        }
        j = i
    }
    return inside
}

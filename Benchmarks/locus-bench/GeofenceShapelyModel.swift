import Foundation
import LocusCore
import LocusRegions

// COMPARISON ONLY — not the benchmark's path, not library code. geofence_bench.py tests
// circles in a planar projection (as 32-gons, or exactly in its "exact" mode); Locus tests
// geodesic circles on WGS-84. This recomputes the script's planar model on the same data, to
// show that its checksums are reproduced, and counts the pairs where planar and geodesic
// circles disagree, with how far from the boundary they lie.

/// geofence_bench.py's planar model: local equirectangular metres around 52.52 N, 13.405 E on
/// a 6,371 km sphere; circles exact or as shapely's 32-gon buffers (quad_segs=8: vertices at
/// multiples of 11.25° on the circle). Polygons are `PolygonRegion`s: the projection is affine
/// in lon/lat, so their lon/lat edges are the script's planar edges.
enum GeofenceShapelyModel {
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

    /// Untimed: candidates from boxes covering both the planar and the geodesic circle; counts
    /// in both models.
    static func compare(_ data: GeofenceData, _ shapes: [RegionShape]) {
        let nc = data.circleCount
        let index = RegionIndex<Int32>(cellDegrees: 0.004)
        for (id, shape) in shapes.enumerated() {
            var box = shape.boundingBox
            if id < nc {  // the planar circle's box, padded against rounding
                let dLat = data.circleRadii[id] / metresPerDegreeLatitude * 1.001
                let dLon = data.circleRadii[id] / metresPerDegreeLongitude * 1.001
                box.minLatitude = min(box.minLatitude, data.circleLatitudes[id] - dLat)
                box.maxLatitude = max(box.maxLatitude, data.circleLatitudes[id] + dLat)
                box.minLongitude = min(box.minLongitude, data.circleLongitudes[id] - dLon)
                box.maxLongitude = max(box.maxLongitude, data.circleLongitudes[id] + dLon)
            }
            index.insert(Int32(id), box)
        }
        var planar = 0, gon = 0, polygons = 0, gonInAny = 0, planarInAny = 0
        var planarOnly = 0, geodesicOnly = 0, worstOutside = 0.0, worstInside = 0.0
        for p in data.pointLatitudes.indices {
            let lat = data.pointLatitudes[p], lon = data.pointLongitudes[p]
            let c = Coordinate(latitude: lat, longitude: lon)
            var planarHits = 0, gonHits = 0
            index.query(c) { id in
                let i = Int(id)
                guard i < nc else {
                    if shapes[i].contains(c) { polygons += 1; planarHits += 1; gonHits += 1 }
                    return
                }
                let r = data.circleRadii[i], clat = data.circleLatitudes[i], clon = data.circleLongitudes[i]
                let inPlanar = inCircle(lat, lon, clat, clon, r)
                if inPlanar { planar += 1; planarHits += 1 }
                if in32gon(lat, lon, clat, clon, r) { gon += 1; gonHits += 1 }
                let inGeodesic = shapes[i].contains(c)
                if inPlanar && !inGeodesic { planarOnly += 1; worstOutside = max(worstOutside, shapes[i].signedDistance(to: c)) }
                if !inPlanar && inGeodesic { geodesicOnly += 1; worstInside = max(worstInside, -shapes[i].signedDistance(to: c)) }
            }
            if planarHits > 0 { planarInAny += 1 }
            if gonHits > 0 { gonInAny += 1 }
        }
        print("shapely model (planar, recomputed here): circles exact \(planar) (shapely exact: 2900260), as 32-gons \(gon) (shapely: 2881411), polygons \(polygons) (shapely: 773000), pairs with 32-gons \(gon + polygons) (shapely: 3654411), points in any with 32-gons \(gonInAny) (shapely: 974213), points in any with exact circles \(planarInAny)")
        print(String(format: "planar vs geodesic circles: %d pairs inside only the planar circle (geodesic distance up to %.3f m beyond r), %d only inside the geodesic one (up to %.3f m within r)",
                     planarOnly, worstOutside, geodesicOnly, worstInside))
    }
}

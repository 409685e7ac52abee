import LocusCore

/// A coordinate from latitude, longitude (degrees) — note: the opposite order to GeoJSON.
func at(_ latitude: Double, _ longitude: Double) -> Coordinate {
    Coordinate(latitude: latitude, longitude: longitude)
}

/// A ring from GeoJSON-ordered (longitude, latitude) pairs, so fixtures read like GeoJSON.
func ring(_ lonLat: [(Double, Double)]) -> [Coordinate] {
    lonLat.map { Coordinate(latitude: $0.1, longitude: $0.0) }
}

/// An axis-aligned closed square ring in lon/lat.
func square(lon: ClosedRange<Double>, lat: ClosedRange<Double>) -> [Coordinate] {
    ring([(lon.lowerBound, lat.lowerBound), (lon.upperBound, lat.lowerBound), (lon.upperBound, lat.upperBound),
          (lon.lowerBound, lat.upperBound), (lon.lowerBound, lat.lowerBound)])
}

/// The true geodesic distance from `c` to the lon/lat-straight segment a–b: ternary search
/// over the segment's parameter with Karney's distance (unimodal for the short segments and
/// nearby points used in the tests). The reference the fast projection is checked against.
func referenceDistance(from c: Coordinate, toSegment a: Coordinate, _ b: Coordinate) -> Double {
    func point(_ t: Double) -> Coordinate {
        at(a.latitude + t * (b.latitude - a.latitude), a.longitude + t * (b.longitude - a.longitude))
    }
    var lo = 0.0, hi = 1.0
    for _ in 0 ..< 200 {
        let m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3
        if Geodesic.distance(from: c, to: point(m1)) < Geodesic.distance(from: c, to: point(m2)) { hi = m2 } else { lo = m1 }
    }
    return Geodesic.distance(from: c, to: point((lo + hi) / 2))
}

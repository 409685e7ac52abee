/// Geodesics (shortest paths) on the WGS-84 ellipsoid.
///
/// Uses Karney's algorithm (C. F. F. Karney, "Algorithms for geodesics", J. Geodesy 87,
/// 43–55, 2013), the method of GeographicLib: accurate to about 15 nanometres for any pair of
/// points, and the inverse problem converges everywhere, including nearly antipodal points
/// where Vincenty's method fails.
///
/// Conventions:
/// - Coordinates are WGS-84 geodetic degrees; see `Coordinate`.
/// - Distances are metres along the ellipsoid surface (height is ignored).
/// - Bearings (azimuths) are degrees clockwise from true north, returned in [0, 360).
/// - A latitude outside [-90, 90], or a non-finite input, gives NaN results.
/// - At a pole the bearing is taken as if the pole were approached along the meridian of the
///   given longitude, so (90, 0) and (90, 180) are the same point but lead off differently.
public enum Geodesic {
    /// WGS-84 equatorial radius a, metres.
    public static let equatorialRadius: Double = 6_378_137
    /// WGS-84 flattening f.
    public static let flattening: Double = 1 / 298.257223563

    /// Length of the shortest path between two points, metres.
    public static func distance(from start: Coordinate, to end: Coordinate) -> Double {
        inverse(from: start, to: end).distance
    }

    /// Solves the inverse problem: the shortest path from `start` to `end`.
    ///
    /// - Returns: `distance` in metres; `initialBearing`, the direction of travel when
    ///   leaving `start`; `finalBearing`, the direction of travel when arriving at `end`
    ///   (not the bearing back to `start`, which is `finalBearing` ± 180). Bearings are
    ///   degrees clockwise from true north in [0, 360). For coincident points the distance
    ///   is 0 and the bearings are conventional (180 away from the poles), not meaningful.
    ///   Where several shortest paths exist (exactly antipodal points), one of them is chosen.
    public static func inverse(from start: Coordinate, to end: Coordinate)
        -> (distance: Double, initialBearing: Double, finalBearing: Double) {
        let solution = GeodesicSolver.wgs84.inverse(lat1: start.latitude, lon1: start.longitude,
                                                    lat2: end.latitude, lon2: end.longitude)
        return (solution.distance, bearing(solution.azimuth1), bearing(solution.azimuth2))
    }

    /// Solves the direct problem: where the geodesic leaving `start` at `bearing` ends after
    /// `distance` metres, and in which direction it is then heading.
    ///
    /// - Parameters:
    ///   - bearing: Degrees clockwise from true north; any value (reduced modulo 360).
    ///   - distance: Metres; negative travels backwards along the same geodesic. Distances
    ///     longer than half the globe wrap around it along the geodesic.
    /// - Returns: The destination (longitude in [-180, 180]) and the final bearing, degrees
    ///   clockwise from true north in [0, 360).
    public static func direct(from start: Coordinate, bearing: Double, distance: Double)
        -> (destination: Coordinate, finalBearing: Double) {
        let solution = GeodesicSolver.wgs84.direct(lat1: start.latitude, lon1: start.longitude,
                                                   azi1: bearing, s12: distance)
        return (Coordinate(latitude: solution.latitude, longitude: solution.longitude),
                Self.bearing(solution.azimuth2))
    }

    /// The point `distance` metres from `start` along the geodesic leaving at `bearing`
    /// (degrees clockwise from true north). See `direct(from:bearing:distance:)`.
    public static func destination(from start: Coordinate, bearing: Double, distance: Double) -> Coordinate {
        direct(from: start, bearing: bearing, distance: distance).destination
    }

    /// An azimuth in [-180, 180] as a bearing in [0, 360).
    static func bearing(_ azimuth: Double) -> Double {
        let b = azimuth < 0 ? azimuth + 360 : azimuth + 0  // + 0 turns -0 into 0
        // -1e-17 + 360 rounds to 360.
        return b >= 360 ? b - 360 : b
    }
}

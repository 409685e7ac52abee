/// A point on the WGS-84 ellipsoid.
///
/// Units: degrees. `latitude` is geodetic latitude, positive north, valid in [-90, 90];
/// `longitude` is positive east and may be given in any range (geodesic functions reduce it
/// modulo 360). No validation happens here, so a value decoded from the wire is kept as sent;
/// the geodesic functions answer NaN for a latitude outside [-90, 90] rather than trapping.
public struct Coordinate: Sendable, Hashable, Codable {
    /// Geodetic latitude, degrees, positive north.
    public var latitude: Double
    /// Longitude, degrees, positive east.
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// True when the latitude is in [-90, 90] and the longitude is finite.
    public var isValid: Bool { abs(latitude) <= 90 && longitude.isFinite }
}

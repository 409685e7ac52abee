import LocusCore

/// A latitude/longitude box, degrees: the bounding box of a region (issue 5), the unit the
/// spatial index works in.
///
/// Longitudes are normalised to [-180, 180). A box that crosses the antimeridian has
/// `minLongitude > maxLongitude` (e.g. 179 … -179); `splitAtAntimeridian()` gives the one or two
/// boxes that do not cross it.
public struct GeoBox: Sendable, Hashable {
    public var minLatitude: Double
    public var maxLatitude: Double
    public var minLongitude: Double
    public var maxLongitude: Double

    public init(minLatitude: Double, maxLatitude: Double, minLongitude: Double, maxLongitude: Double) {
        self.minLatitude = minLatitude
        self.maxLatitude = maxLatitude
        self.minLongitude = minLongitude
        self.maxLongitude = maxLongitude
    }

    /// Whether the box crosses the antimeridian.
    public var crossesAntimeridian: Bool { minLongitude > maxLongitude }

    /// Whether `c` (longitude in [-180, 180)) lies in the box, edges included.
    public func contains(_ c: Coordinate) -> Bool {
        guard c.latitude >= minLatitude, c.latitude <= maxLatitude else { return false }
        if crossesAntimeridian { return c.longitude >= minLongitude || c.longitude <= maxLongitude }
        return c.longitude >= minLongitude && c.longitude <= maxLongitude
    }

    /// The box as one or two boxes that do not cross the antimeridian.
    public func splitAtAntimeridian() -> [GeoBox] {
        guard crossesAntimeridian else { return [self] }
        return [GeoBox(minLatitude: minLatitude, maxLatitude: maxLatitude, minLongitude: minLongitude, maxLongitude: 180),
                GeoBox(minLatitude: minLatitude, maxLatitude: maxLatitude, minLongitude: -180, maxLongitude: maxLongitude)]
    }
}

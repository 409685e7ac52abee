/// One region part as stored in a grid cell: the region's handle and its box, inline, so that
/// filtering a cell's candidates by box reads one contiguous array instead of chasing a handle
/// into a side table (the box test rejects most candidates; see `RegionIndex`).
///
/// The box never crosses the antimeridian: crossing boxes are stored as their two halves.
@usableFromInline
struct IndexEntry: Sendable {
    @usableFromInline var minLatitude: Double
    @usableFromInline var maxLatitude: Double
    @usableFromInline var minLongitude: Double
    @usableFromInline var maxLongitude: Double
    @usableFromInline var handle: Int32

    init(handle: Int32, box: GeoBox) {
        self.handle = handle
        minLatitude = box.minLatitude
        maxLatitude = box.maxLatitude
        minLongitude = box.minLongitude
        maxLongitude = box.maxLongitude
    }

    /// Edges included, as `GeoBox.contains`.
    @inlinable
    func contains(latitude: Double, longitude: Double) -> Bool {
        latitude >= minLatitude && latitude <= maxLatitude && longitude >= minLongitude && longitude <= maxLongitude
    }
}

import LocusCore

/// A `PolygonRegion` copied into one allocation — its polygon records, then its ring records,
/// then its vertices — for `RegionShapeIndex`'s query path.
///
/// Why: `PolygonRegion` keeps three arrays, so testing a random candidate costs three
/// dependent cache misses (plus a retain and release of each array); here the records and the
/// first vertices share one or two cache lines. Containment is `PolygonRegion`'s own code
/// (`location(of:polygons:rings:vertices:)`) on the copied records, so answers are identical.
///
/// Not owning: whoever packs one calls `deallocate()` once, when the region leaves.
@usableFromInline
struct PackedPolygonRegion {
    /// Header (polygon, ring and vertex counts as `Int`), then the three record arrays.
    let base: UnsafeMutableRawPointer

    private static let headerBytes = 3 * MemoryLayout<Int>.stride

    init(_ region: PolygonRegion) {
        let polygonBytes = region.polygons.count * MemoryLayout<PolygonRegion.Polygon>.stride
        let ringBytes = region.rings.count * MemoryLayout<PolygonRegion.Ring>.stride
        let vertexBytes = region.vertices.count * MemoryLayout<PlanePoint>.stride
        let alignment = max(MemoryLayout<Int>.alignment, MemoryLayout<PolygonRegion.Polygon>.alignment,
                            MemoryLayout<PolygonRegion.Ring>.alignment, MemoryLayout<PlanePoint>.alignment)
        base = .allocate(byteCount: Self.headerBytes + polygonBytes + ringBytes + vertexBytes, alignment: alignment)
        let header = base.bindMemory(to: Int.self, capacity: 3)
        header[0] = region.polygons.count
        header[1] = region.rings.count
        header[2] = region.vertices.count
        let polygons = base + Self.headerBytes
        polygons.bindMemory(to: PolygonRegion.Polygon.self, capacity: region.polygons.count)
            .initialize(from: region.polygons, count: region.polygons.count)
        (polygons + polygonBytes).bindMemory(to: PolygonRegion.Ring.self, capacity: region.rings.count)
            .initialize(from: region.rings, count: region.rings.count)
        (polygons + polygonBytes + ringBytes).bindMemory(to: PlanePoint.self, capacity: region.vertices.count)
            .initialize(from: region.vertices, count: region.vertices.count)
    }

    func deallocate() { base.deallocate() }

    /// Bytes of the allocation.
    var byteCount: Int {
        let header = base.assumingMemoryBound(to: Int.self)
        return Self.headerBytes + header[0] * MemoryLayout<PolygonRegion.Polygon>.stride
            + header[1] * MemoryLayout<PolygonRegion.Ring>.stride + header[2] * MemoryLayout<PlanePoint>.stride
    }

    /// Exactly `PolygonRegion.contains(c)` of the packed region.
    @usableFromInline
    func contains(_ c: Coordinate) -> Bool {
        let header = base.assumingMemoryBound(to: Int.self)
        let polygonCount = header[0], ringCount = header[1], vertexCount = header[2]
        let polygons = (base + Self.headerBytes).assumingMemoryBound(to: PolygonRegion.Polygon.self)
        let rings = UnsafeRawPointer(polygons + polygonCount).assumingMemoryBound(to: PolygonRegion.Ring.self)
        let vertices = UnsafeRawPointer(rings + ringCount).assumingMemoryBound(to: PlanePoint.self)
        return PolygonRegion.location(of: c, polygons: UnsafeBufferPointer(start: polygons, count: polygonCount),
                                      rings: UnsafeBufferPointer(start: rings, count: ringCount),
                                      vertices: UnsafeBufferPointer(start: vertices, count: vertexCount)) != .outside
    }
}

import LocusCore

/// Regions by id with their exact shapes: which regions contain a point, answered exactly as
/// `RegionShape.contains` answers (boundary inside, geodesic circles, lon/lat polygons).
///
/// `RegionIndex` only finds candidate boxes; this type also decides containment, fast enough
/// for every fix of many devices against 10⁵ regions (issue 5): ~0.5 µs per query on the
/// geofence benchmark's 110,000 regions, and microseconds per insert, update or remove.
///
/// Design, beyond `RegionIndex`'s sparse grid (which it shares: a box is filed in the cells
/// it covers, fine cells for small boxes, 32× coarser ones for large, a scanned list beyond):
/// - A cell's entries carry everything the test needs and sit in one block (`GridCell`):
///   circles first, then the rest. A query's memory traffic is that one run of cache lines —
///   a random access to a per-region table would be a cache miss per candidate.
/// - A circle entry (`CircleCellEntry`) holds `CircleDistanceBounds`, which answer from a few
///   multiplications for all but points within ~1e-4 of the radius; those, and only those,
///   go to `CircleRegion.contains` and its geodesic.
/// - A polygon entry holds the polygon's raster in that cell (`PolygonCellCoverage`, 8 × 8
///   sub-cells, each inside, outside or near an edge) and a pointer to a `PackedPolygonRegion`
///   (records and vertices in one allocation), read only for points near an edge. A cell the
///   polygon misses, though its box covers it, gets no entry.
/// - The id is in the entry too, so a hit reads no id table.
/// - Tiles are found with a one-multiplication hash (`TileTable`), not `Dictionary`.
///
/// Not thread-safe: confine it to one task or actor.
public final class RegionShapeIndex<ID: Hashable> {
    /// The two grid levels and the count of `oversized`, behind a pointer held in a `let`:
    /// a query reads them with no exclusivity check (a `var` of a class costs a runtime
    /// `swift_beginAccess` on every read, ~10 % of a query).
    @usableFromInline let levels: UnsafeMutablePointer<GridLevels<ID>>
    @usableFromInline var fine: ShapeGridLevel<ID> {
        _read { yield levels.pointee.fine }
        _modify { yield &levels.pointee.fine }
    }
    @usableFromInline var coarse: ShapeGridLevel<ID> {
        _read { yield levels.pointee.coarse }
        _modify { yield &levels.pointee.coarse }
    }
    /// Parts too large even for the coarse level: tested by every query.
    @usableFromInline var oversized: [ShapeCellEntry<ID>] = [] { didSet { levels.pointee.oversizedCount = oversized.count } }
    /// Handle → shape, id, the box filed, the packed polygons; nil / unused for a free handle.
    var shapes: [RegionShape?] = []
    var ids: [ID?] = []
    var boxes: [GeoBox] = []
    var packed: [PackedPolygonRegion?] = []
    var handleOf: [ID: Int32] = [:]
    var freeHandles: [Int32] = []
    /// A box part filed in more cells than this goes up a level.
    let maxCellsPerPart: Int64

    /// - Parameters:
    ///   - cellDegrees: side of a fine cell, degrees; about the typical region's size. The
    ///     default, 0.004° (~450 m north–south), suits regions of 50–500 m; smaller cells
    ///     make queries test fewer entries at the cost of filing each region in more cells.
    ///   - maxCellsPerPart: boxes covering more fine cells than this go to the coarse level
    ///     (cells 32× larger), and past that many coarse cells to the always-tested list.
    public init(cellDegrees: Double = 0.004, maxCellsPerPart: Int = 64) {
        precondition(cellDegrees > 0 && cellDegrees <= 10, "cellDegrees must be in (0, 10]")
        levels = .allocate(capacity: 1)
        levels.initialize(to: GridLevels(fine: ShapeGridLevel(cellDegrees: cellDegrees), coarse: ShapeGridLevel(cellDegrees: cellDegrees * 32)))
        self.maxCellsPerPart = Int64(max(1, maxCellsPerPart))
    }

    deinit {
        for p in packed { p?.deallocate() }
        fine.deallocate()
        coarse.deallocate()
        levels.deinitialize(count: 1)
        levels.deallocate()
    }

    /// Number of regions.
    public var count: Int { handleOf.count }

    /// The shape of `id`, if it is in the index.
    public func shape(of id: ID) -> RegionShape? { handleOf[id].flatMap { shapes[Int($0)] } }

    /// Adds `id` with `shape`, or, when `id` is already in, replaces its shape (as `update`).
    /// - Returns: true when `id` was new.
    @discardableResult
    public func insert(_ id: ID, _ shape: RegionShape) -> Bool {
        if let handle = handleOf[id] {
            refile(handle, id, shape)
            return false
        }
        let handle: Int32
        if let h = freeHandles.popLast() {
            handle = h
        } else {
            precondition(ids.count < Int(Int32.max), "RegionShapeIndex holds at most Int32.max regions")
            handle = Int32(ids.count)
            ids.append(nil); shapes.append(nil); boxes.append(GeoBox(minLatitude: 0, maxLatitude: 0, minLongitude: 0, maxLongitude: 0))
            packed.append(nil)
        }
        handleOf[id] = handle
        file(handle, id, shape)
        return true
    }

    /// Replaces the shape of `id`; does nothing when `id` is not in the index.
    /// - Returns: true when `id` was in the index.
    @discardableResult
    public func update(_ id: ID, _ shape: RegionShape) -> Bool {
        guard let handle = handleOf[id] else { return false }
        refile(handle, id, shape)
        return true
    }

    /// Removes `id`. - Returns: true when it was in the index.
    @discardableResult
    public func remove(_ id: ID) -> Bool {
        guard let handle = handleOf.removeValue(forKey: id) else { return false }
        unfile(handle)
        freeHandles.append(handle)
        return true
    }

    /// Calls `body` once with the id of every region whose shape contains `coordinate`
    /// (exactly `shape.contains(coordinate)`), in no particular order. Allocates nothing.
    /// `body` must not modify the index.
    ///
    /// A point with a latitude outside [-90, 90] or a non-finite coordinate is in no region.
    @inlinable
    public func forEachRegion(containing coordinate: Coordinate, _ body: (ID) -> Void) {
        let latitude = coordinate.latitude
        let longitude = Self.normalizedLongitude(coordinate.longitude)
        guard latitude >= -90, latitude <= 90, longitude.isFinite else { return }
        let levels = levels
        if let found = levels.pointee.fine.view.cell(latitude: latitude, longitude: longitude) {
            forEachRegion(in: found.cell, coordinate, longitude, found.latitudeFromCorner, found.longitudeFromCorner, body)
        }
        if levels.pointee.coarse.view.entryCount > 0, let found = levels.pointee.coarse.view.cell(latitude: latitude, longitude: longitude) {
            forEachRegion(in: found.cell, coordinate, longitude, found.latitudeFromCorner, found.longitudeFromCorner, body)
        }
        if levels.pointee.oversizedCount > 0 {
            for entry in oversized { if test(entry.test, entry.handle, coordinate, longitude) { body(entry.id) } }
        }
    }

    /// One cell's part of a query: its circles, then its other entries.
    @inlinable @inline(__always)
    func forEachRegion(in cell: GridCell<ID>, _ coordinate: Coordinate, _ longitude: Double,
                       _ latitudeFromCorner: Double, _ longitudeFromCorner: Double, _ body: (ID) -> Void) {
        guard let (circles, circleCount, shapes, shapeCount) = cell.entries() else { return }
        for i in 0 ..< circleCount {
            let entry = circles + i
            let inside = entry.pointee.test.contains(latitudeFromCorner: latitudeFromCorner, longitudeFromCorner: longitudeFromCorner)
                ?? circleContains(entry.pointee.handle, coordinate)
            if inside { body(entry.pointee.id) }
        }
        for i in 0 ..< shapeCount {
            let entry = shapes + i
            if test(entry.pointee.test, entry.pointee.handle, coordinate, longitude, latitudeFromCorner, longitudeFromCorner) {
                body(entry.pointee.id)
            }
        }
    }

    /// Calls `body(i, id)` once for every region containing `points[i]`, for every `i`: the same
    /// pairs as `forEachRegion(containing:)` on each point, but points are visited in grid order
    /// (cell by cell), not in array order; a point's ids come one after another, in no
    /// particular order.
    ///
    /// For many points at once (a replay, a batch of fixes): a point's cell and the regions
    /// near it are then usually still in the CPU cache from the previous point, where random
    /// points each wait for main memory. Allocates O(points) scratch (8 bytes a point).
    /// `body` must not modify the index.
    @inlinable
    public func forEachRegion(containingEachOf points: [Coordinate], _ body: (_ pointIndex: Int, ID) -> Void) {
        let n = points.count
        guard n > 0 else { return }
        precondition(n < Int(UInt32.max), "at most UInt32.max - 1 points per call")
        // Sort point indices by fine cell, counting sort on a 32-bit cell key (one or two
        // 16-bit passes); points without a fine tile (key 0) first — other levels may hold them.
        let view = levels.pointee.fine.view
        var keys = [UInt32](repeating: 0, count: n)
        var largest: UInt32 = 0
        points.withUnsafeBufferPointer { points in
            for i in 0..<n {
                let latitude = points[i].latitude
                let longitude = Self.normalizedLongitude(points[i].longitude)
                guard latitude >= -90, latitude <= 90, longitude.isFinite else { continue }
                let r = view.row(latitude), c = view.column(longitude)
                guard let chunk = view.tiles.chunk(GridView<ID>.tileKey(row: r, column: c)) else { continue }
                let key = UInt32(truncatingIfNeeded: (chunk << 8 | GridView<ID>.slot(row: r, column: c)) + 1)
                keys[i] = key
                largest = max(largest, key)
            }
        }
        var order = [UInt32](unsafeUninitializedCapacity: n) { buffer, count in
            for i in 0..<n { buffer[i] = UInt32(i) }
            count = n
        }
        var scratch = [UInt32](repeating: 0, count: n)
        var counts = [Int](repeating: 0, count: 1 << 16)
        for shift: UInt32 in largest >> 16 == 0 ? [0] : [0, 16] {
            for i in counts.indices { counts[i] = 0 }
            for i in order { counts[Int((keys[Int(i)] >> shift) & 0xFFFF)] += 1 }
            var total = 0
            for b in counts.indices { let c = counts[b]; counts[b] = total; total += c }
            for i in order {
                let b = Int((keys[Int(i)] >> shift) & 0xFFFF)
                scratch[counts[b]] = i
                counts[b] += 1
            }
            swap(&order, &scratch)
        }
        points.withUnsafeBufferPointer { points in
            for i in order {
                let index = Int(i)
                forEachRegion(containing: points[index]) { body(index, $0) }
            }
        }
    }

    /// `longitude` reduced to [-180, 180) as the queries reduce it.
    @inlinable @inline(__always)
    static func normalizedLongitude(_ longitude: Double) -> Double {
        guard longitude < -180 || longitude >= 180 else { return longitude }
        let reduced = (longitude + 180).truncatingRemainder(dividingBy: 360)
        return reduced + (reduced < 0 ? 180 : -180)
    }

    /// Whether a cell's non-circle entry contains the point; `longitude` is `coordinate`'s
    /// reduced to [-180, 180), then the point's offsets from the cell's south-west corner.
    @inlinable @inline(__always)
    func test(_ test: CellTest, _ handle: Int32, _ coordinate: Coordinate, _ longitude: Double,
              _ latitudeFromCorner: Double, _ longitudeFromCorner: Double) -> Bool {
        switch test {
        case .polygon(let coverage, let polygons):
            return coverage.contains(latitudeFromCorner: latitudeFromCorner, longitudeFromCorner: longitudeFromCorner)
                ?? polygons.contains(coordinate)
        case .shape(let bound, let east):
            return (east ? longitude >= bound : longitude <= bound) && shapeContains(handle, coordinate)
        }
    }

    /// The test of an oversized entry (only `.shape` entries are oversized).
    @inlinable @inline(__always)
    func test(_ test: CellTest, _ handle: Int32, _ coordinate: Coordinate, _ longitude: Double) -> Bool {
        guard case .shape(let bound, let east) = test else { return false }
        return (east ? longitude >= bound : longitude <= bound) && shapeContains(handle, coordinate)
    }

    /// The exact test of the circle at `handle`, for points its bounds cannot decide.
    @usableFromInline
    func circleContains(_ handle: Int32, _ coordinate: Coordinate) -> Bool {
        guard case .circle(let circle)? = shapes[Int(handle)] else { return false }
        return circle.contains(coordinate)
    }

    @usableFromInline
    func shapeContains(_ handle: Int32, _ coordinate: Coordinate) -> Bool {
        shapes[Int(handle)]?.contains(coordinate) ?? false
    }

    /// Bytes held by the index, approximately: cell entries and tables, per-region tables
    /// and packed polygons; not the `RegionShape`s' own arrays nor the ids' heap storage.
    public var approximateBytes: Int {
        fine.approximateBytes + coarse.approximateBytes
            + oversized.capacity * MemoryLayout<ShapeCellEntry<ID>>.stride
            + shapes.capacity * MemoryLayout<RegionShape?>.stride + ids.capacity * MemoryLayout<ID?>.stride
            + boxes.capacity * MemoryLayout<GeoBox>.stride + packed.capacity * MemoryLayout<PackedPolygonRegion?>.stride
            + packed.reduce(0) { $0 + ($1?.byteCount ?? 0) }
            + handleOf.capacity * (MemoryLayout<ID>.stride + 4) * 5 / 4
    }

    private func refile(_ handle: Int32, _ id: ID, _ shape: RegionShape) {
        unfile(handle)
        file(handle, id, shape)
    }

    private func file(_ handle: Int32, _ id: ID, _ shape: RegionShape) {
        let h = Int(handle)
        let box = shape.boundingBox
        shapes[h] = shape
        ids[h] = id
        boxes[h] = box
        var polygons: PackedPolygonRegion?
        if case .polygons(let region) = shape {
            polygons = PackedPolygonRegion(region)
            packed[h] = polygons
        }
        let parts = box.splitAtAntimeridian()
        var bounds: CircleDistanceBounds?
        if case .circle(let circle) = shape, parts.count == 1 { bounds = CircleDistanceBounds(circle) }
        for (k, part) in parts.enumerated() {
            let level = level(for: part)
            guard let level, parts.count == 1 else {
                // Halves across the antimeridian each take the longitudes of their own box only,
                // which are disjoint: a point is reported once even where both are filed.
                let test: CellTest = parts.count == 1 ? .shape(bound: -.infinity, east: true)
                    : k == 0 ? .shape(bound: part.minLongitude, east: true) : .shape(bound: part.maxLongitude, east: false)
                let entry = ShapeCellEntry<ID>(test: test, handle: handle, id: id)
                switch level {
                case 0?: fine.insert(box: part) { cell, _, _ in cell.append(shape: entry); return 1 }
                case 1?: coarse.insert(box: part) { cell, _, _ in cell.append(shape: entry); return 1 }
                default: oversized.append(entry)
                }
                continue
            }
            let cellDegrees = level == 0 ? fine.view.cellDegrees : coarse.view.cellDegrees
            let file = { (cell: inout GridCell<ID>, cornerLatitude: Double, cornerLongitude: Double) -> Int in
                if let bounds {
                    let compact = bounds.compact(cornerLatitude: cornerLatitude, cornerLongitude: cornerLongitude)
                    cell.append(circle: CircleCellEntry(test: compact, handle: handle, id: id))
                    return 1
                }
                guard case .polygons(let region) = shape, let polygons else { return 0 }
                let coverage = PolygonCellCoverage(region, box: part, cornerLatitude: cornerLatitude, cornerLongitude: cornerLongitude,
                                                   cellDegrees: cellDegrees)
                // A cell the region provably misses everywhere needs no entry.
                if coverage.decided == ~0 && coverage.inside == 0 { return 0 }
                cell.append(shape: ShapeCellEntry(test: .polygon(coverage, polygons), handle: handle, id: id))
                return 1
            }
            if level == 0 { fine.insert(box: part, file) } else { coarse.insert(box: part, file) }
        }
    }

    private func unfile(_ handle: Int32) {
        let h = Int(handle)
        for part in boxes[h].splitAtAntimeridian() {
            switch level(for: part) {
            case 0?: fine.remove(handle: handle, box: part)
            case 1?: coarse.remove(handle: handle, box: part)
            default:
                if let i = oversized.firstIndex(where: { $0.handle == handle }) { oversized.remove(at: i) }
            }
        }
        packed[h]?.deallocate()
        packed[h] = nil
        shapes[h] = nil
        ids[h] = nil
    }

    /// The finest level that files `part` in at most `maxCellsPerPart` cells (0 fine,
    /// 1 coarse); nil: oversized.
    private func level(for part: GeoBox) -> Int? {
        if fine.cellCount(of: part) <= maxCellsPerPart { return 0 }
        if coarse.cellCount(of: part) <= maxCellsPerPart { return 1 }
        return nil
    }
}

/// What `RegionShapeIndex` reads on every query, kept together behind one pointer.
@usableFromInline
struct GridLevels<ID> {
    @usableFromInline var fine: ShapeGridLevel<ID>
    @usableFromInline var coarse: ShapeGridLevel<ID>
    /// `oversized.count`, readable without retaining the array.
    @usableFromInline var oversizedCount = 0
}

import LocusCore

/// A spatial index of region bounding boxes: which regions' boxes contain a point.
///
/// The candidates it reports are the regions whose `GeoBox` contains the point (edges
/// included); testing the region's exact shape is the caller's next step.
///
/// Design: a sparse uniform grid over latitude/longitude (`GridLevel`). A box is filed in
/// every cell it overlaps, with the box stored inline; a query hashes the point's one cell and
/// box-tests that cell's short array. So a query touches only nearby regions, costs one hash
/// lookup per non-empty level, and allocates nothing; inserting or removing touches only the
/// box's cells (no rebuild, unlike an STR-packed tree).
/// - Cell size should be about the typical region size (`cellDegrees`): much smaller files
///   each box in many cells (memory, insert time), much larger makes each query box-test more
///   non-matching entries.
/// - A box much larger than a cell (a city, a polar cap) would be filed in thousands of cells,
///   so it goes to a coarse level (cells 32× larger) or, beyond that, to a list every query
///   scans. Few regions are that large; they cost each query one box test each.
/// - A box crossing the antimeridian is filed as its two halves (`splitAtAntimeridian()`);
///   a point lies in at most one half, so it is still reported once.
///
/// Ids: any `Hashable`. Internally each region has an `Int32` handle (entries stay 40 bytes
/// and dense); the handle → id table is an array, read once per reported candidate.
///
/// Not thread-safe: a value-semantics-free class; confine it to one task or actor.
public final class RegionIndex<ID: Hashable> {
    /// Fine and coarse grids, searched in order.
    @usableFromInline var levels: [GridLevel]
    /// Parts too large even for the coarse level: scanned by every query.
    @usableFromInline var oversized: [IndexEntry] = []
    /// Handle → id; nil for a free handle.
    @usableFromInline var ids: [ID?] = []
    var boxes: [GeoBox] = []
    var handleOf: [ID: Int32] = [:]
    var freeHandles: [Int32] = []
    /// A box part filed in more cells than this goes up a level.
    let maxCellsPerPart: Int64

    /// - Parameters:
    ///   - cellDegrees: side of a fine cell, degrees; about the typical region's size
    ///     (the default, 0.004°, is ~450 m north–south, suited to regions of 50–500 m).
    ///   - maxCellsPerPart: boxes covering more fine cells than this go to the coarse level
    ///     (cells 32× larger), and past that many coarse cells to the always-scanned list.
    public init(cellDegrees: Double = 0.004, maxCellsPerPart: Int = 64) {
        precondition(cellDegrees > 0 && cellDegrees <= 10, "cellDegrees must be in (0, 10]")
        levels = [GridLevel(cellDegrees: cellDegrees), GridLevel(cellDegrees: cellDegrees * 32)]
        self.maxCellsPerPart = Int64(max(1, maxCellsPerPart))
    }

    /// Number of regions.
    public var count: Int { handleOf.count }

    /// The box of `id`, if it is in the index.
    public func box(of id: ID) -> GeoBox? { handleOf[id].map { boxes[Int($0)] } }

    /// Adds `id` with `box`, or, when `id` is already in, moves it to `box` (as `update`).
    ///
    /// - Precondition: latitudes in [-90, 90] with min ≤ max; longitudes in [-180, 180].
    /// - Returns: true when `id` was new.
    @discardableResult
    public func insert(_ id: ID, _ box: GeoBox) -> Bool {
        precondition(Self.isValid(box), "invalid GeoBox \(box)")
        if let handle = handleOf[id] {
            refile(handle, to: box)
            return false
        }
        let handle: Int32
        if let h = freeHandles.popLast() {
            handle = h
            ids[Int(h)] = id
            boxes[Int(h)] = box
        } else {
            precondition(ids.count < Int(Int32.max), "RegionIndex holds at most Int32.max regions")
            handle = Int32(ids.count)
            ids.append(id)
            boxes.append(box)
        }
        handleOf[id] = handle
        file(handle, box)
        return true
    }

    /// Moves `id` to `box`; does nothing when `id` is not in the index.
    /// - Returns: true when `id` was in the index.
    @discardableResult
    public func update(_ id: ID, _ box: GeoBox) -> Bool {
        precondition(Self.isValid(box), "invalid GeoBox \(box)")
        guard let handle = handleOf[id] else { return false }
        refile(handle, to: box)
        return true
    }

    /// Removes `id`. - Returns: true when it was in the index.
    @discardableResult
    public func remove(_ id: ID) -> Bool {
        guard let handle = handleOf.removeValue(forKey: id) else { return false }
        unfile(handle, boxes[Int(handle)])
        ids[Int(handle)] = nil
        freeHandles.append(handle)
        return true
    }

    /// Calls `body` once with the id of every region whose box contains `coordinate`, in no
    /// particular order. Allocates nothing. `body` must not modify the index.
    ///
    /// Longitudes outside [-180, 180) are reduced to it; a point with a latitude outside
    /// [-90, 90] or a non-finite coordinate is in no box.
    @inlinable
    public func query(_ coordinate: Coordinate, _ body: (ID) -> Void) {
        let latitude = coordinate.latitude
        var longitude = coordinate.longitude
        guard latitude >= -90, latitude <= 90, longitude.isFinite else { return }
        if longitude < -180 || longitude >= 180 {
            longitude = (longitude + 180).truncatingRemainder(dividingBy: 360)
            longitude += longitude < 0 ? 180 : -180
        }
        // Local copies (a retain each, no copying): reading a class's stored property inside the
        // per-candidate loop costs an exclusivity check and a retain/release every time.
        let levels = self.levels, ids = self.ids
        for level in levels where level.entryCount > 0 {
            level.forEachEntry(latitude: latitude, longitude: longitude) { entry in
                if entry.contains(latitude: latitude, longitude: longitude) { body(ids[Int(entry.handle)]!) }
            }
        }
        for entry in oversized where entry.contains(latitude: latitude, longitude: longitude) {
            body(ids[Int(entry.handle)]!)
        }
    }

    /// Bytes held by the index, approximately (entries, cell tables, id tables; not the ids'
    /// own heap storage).
    public var approximateBytes: Int {
        levels.reduce(0) { $0 + $1.approximateBytes }
            + oversized.capacity * MemoryLayout<IndexEntry>.stride
            + ids.capacity * MemoryLayout<ID?>.stride + boxes.capacity * MemoryLayout<GeoBox>.stride
            + handleOf.capacity * (MemoryLayout<ID>.stride + 4) * 5 / 4
    }

    private func refile(_ handle: Int32, to box: GeoBox) {
        unfile(handle, boxes[Int(handle)])
        boxes[Int(handle)] = box
        file(handle, box)
    }

    private func file(_ handle: Int32, _ box: GeoBox) {
        for part in box.splitAtAntimeridian() {
            let entry = IndexEntry(handle: handle, box: part)
            if let level = level(for: part) { levels[level].insert(entry, box: part) } else { oversized.append(entry) }
        }
    }

    private func unfile(_ handle: Int32, _ box: GeoBox) {
        for part in box.splitAtAntimeridian() {
            if let level = level(for: part) {
                levels[level].remove(handle: handle, box: part)
            } else if let i = oversized.firstIndex(where: { $0.handle == handle }) {
                oversized.remove(at: i)
            }
        }
    }

    /// The finest level that files `part` in at most `maxCellsPerPart` cells; nil: oversized.
    private func level(for part: GeoBox) -> Int? {
        levels.indices.first { levels[$0].cellCount(of: part) <= maxCellsPerPart }
    }

    private static func isValid(_ box: GeoBox) -> Bool {
        box.minLatitude >= -90 && box.maxLatitude <= 90 && box.minLatitude <= box.maxLatitude
            && box.minLongitude >= -180 && box.minLongitude <= 180 && box.maxLongitude >= -180 && box.maxLongitude <= 180
    }
}

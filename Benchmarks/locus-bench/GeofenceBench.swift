import Foundation
import LocusCore
@_spi(Benchmarks) import LocusRegions

/// `geofence DIR [CELL_DEGREES]`: issue 5's scale benchmark on geofence_bench.py's data set —
/// 100,000 circles + 10,000 polygons, 1,000,000 points — through the library's own path:
/// `RegionShape`s (geodesic `CircleRegion`, lon/lat `PolygonRegion`) in a `RegionShapeIndex`,
/// queried one point at a time on one thread. Prints shape and index build time, queries per
/// second (wall and this thread's CPU), hit counts, memory, insert / remove / update cost at
/// full size, a check of every point's hits against `RegionIndex` + `RegionShape.contains`, and
/// (GeofenceShapelyModel.swift) shapely's planar checksums recomputed for comparison.
enum GeofenceBench {
    static func run(directory: String, cellDegrees: Double) throws {
        let rss0 = residentKiB()
        let data = try GeofenceData(directory: directory)
        let rssData = residentKiB()
        let nc = data.circleCount, np = data.polygonCount, npts = data.pointLatitudes.count
        print("geofence data: \(nc) circles, \(np) polygons, \(npts) points (\(rssData - rss0) KiB loaded)")

        let t0 = now()
        let (shapes, selfIntersecting) = try allShapes(data)
        let t1 = now()
        if selfIntersecting > 0 {
            print("\(selfIntersecting) polygons are self-intersecting (shapely's is_valid agrees): loaded without that check, even-odd inside, as shapely tests them")
        }
        let index = RegionShapeIndex<Int32>(cellDegrees: cellDegrees)
        for (id, shape) in shapes.enumerated() { index.insert(Int32(id), shape) }
        let t2 = now()
        let rssIndex = residentKiB()
        print(String(format: "build: shapes %.3f s (validated; circle boxes by geodesic), index %.3f s (%d regions, %.2f µs/insert, cell %.4f°); index ~%.1f MB (estimate), RSS +%d KiB",
                     t1 - t0, t2 - t1, index.count, (t2 - t1) / Double(index.count) * 1e6, cellDegrees,
                     Double(index.approximateBytes) / 1e6, rssIndex - rssData))

        let result = queryAll(data, index)
        print(String(format: "locus-geofence points=%d secs=%.3f q/s=%.0f cpu_q/s=%.0f hits=%d circle_hits=%d poly_hits=%d points_in_any=%d",
                     npts, result.wall, Double(npts) / result.wall, Double(npts) / result.cpu, result.pairs, result.circlePairs,
                     result.pairs - result.circlePairs, result.inAny))
        let batch = queryBatch(data, index)
        print(String(format: "locus-geofence-batch points=%d secs=%.3f q/s=%.0f cpu_q/s=%.0f hits=%d circle_hits=%d poly_hits=%d points_in_any=%d",
                     npts, batch.wall, Double(npts) / batch.wall, Double(npts) / batch.cpu, batch.pairs, batch.circlePairs,
                     batch.pairs - batch.circlePairs, batch.inAny))
        churn(data, index, shapes)
        try checkAgainstShapes(data, index, shapes)
        GeofenceShapelyModel.compare(data, shapes)
        print("peak RSS \(peakKiB()) KiB")
    }

    /// Only the per-point query loop, `repeats` times over all points, each pass's rate printed:
    /// for profilers and for spreads of repeated runs without the rest of `run`'s work.
    static func runQueriesOnly(directory: String, cellDegrees: Double, repeats: Int) throws {
        let data = try GeofenceData(directory: directory)
        let index = RegionShapeIndex<Int32>(cellDegrees: cellDegrees)
        for (id, shape) in try allShapes(data).shapes.enumerated() { index.insert(Int32(id), shape) }
        for pass in 1...max(1, repeats) {
            let result = queryAll(data, index)
            print(String(format: "pass %d: q/s=%.0f cpu_q/s=%.0f hits=%d", pass, Double(data.pointLatitudes.count) / result.wall,
                         Double(data.pointLatitudes.count) / result.cpu, result.pairs))
        }
    }

    /// Every region of the set, ids in order (circles, then polygons), and how many polygons
    /// had to be loaded without the simplicity check.
    static func allShapes(_ data: GeofenceData) throws -> (shapes: [RegionShape], selfIntersecting: Int) {
        var selfIntersecting = 0
        let shapes = try (0..<data.circleCount).map { try circleShape(data, $0) }
            + (0..<data.polygonCount).map { try polygonShape(data, $0, selfIntersecting: &selfIntersecting) }
        return (shapes, selfIntersecting)
    }

    static func circleShape(_ data: GeofenceData, _ i: Int, latitudeOffset: Double = 0) throws -> RegionShape {
        try .circle(center: Coordinate(latitude: data.circleLatitudes[i] + latitudeOffset, longitude: data.circleLongitudes[i]),
                    radius: data.circleRadii[i])
    }

    /// Polygon `k` as a GeoJSON-style closed ring (the CSV does not repeat the first vertex).
    /// The script's random star polygons are not all simple; those that are not (counted in
    /// `selfIntersecting`) are loaded without the simplicity check, so that the data set stays
    /// the one shapely is given.
    static func polygonShape(_ data: GeofenceData, _ k: Int, latitudeOffset: Double = 0, selfIntersecting: inout Int) throws -> RegionShape {
        var ring = (data.polygonStarts[k]..<data.polygonStarts[k + 1]).map {
            Coordinate(latitude: data.vertexLatitudes[$0] + latitudeOffset, longitude: data.vertexLongitudes[$0])
        }
        ring.append(ring[0])
        do {
            return try .polygons([[ring]])
        } catch let error as RegionGeometryError where error.code == .selfIntersection {
            selfIntersecting += 1
            return .polygons(try PolygonRegion(selfIntersectingPolygons: [[ring]]))
        }
    }

    struct QueryResult { var pairs = 0, circlePairs = 0, inAny = 0, wall = 0.0, cpu = 0.0 }

    /// The timed loop: one `forEachRegion(containing:)` per point, in file order.
    static func queryAll(_ data: GeofenceData, _ index: RegionShapeIndex<Int32>) -> QueryResult {
        let nc = Int32(data.circleCount)
        var r = QueryResult()
        let w0 = now(), c0 = NMEABench.threadCPU()
        for p in data.pointLatitudes.indices {
            var hits = 0, circleHits = 0
            index.forEachRegion(containing: Coordinate(latitude: data.pointLatitudes[p], longitude: data.pointLongitudes[p])) { id in
                hits += 1
                if id < nc { circleHits += 1 }
            }
            r.pairs += hits
            r.circlePairs += circleHits
            if hits > 0 { r.inAny += 1 }
        }
        r.wall = now() - w0
        r.cpu = NMEABench.threadCPU() - c0
        return r
    }

    /// The batch query, `forEachRegion(containingEachOf:)`: all points in one call, as
    /// shapely's bulk `tree.query(points)`; the `[Coordinate]` is built untimed, as the script
    /// builds its points array untimed.
    static func queryBatch(_ data: GeofenceData, _ index: RegionShapeIndex<Int32>) -> QueryResult {
        let nc = Int32(data.circleCount)
        let points = data.pointLatitudes.indices.map { Coordinate(latitude: data.pointLatitudes[$0], longitude: data.pointLongitudes[$0]) }
        var r = QueryResult()
        var last = -1
        let w0 = now(), c0 = NMEABench.threadCPU()
        index.forEachRegion(containingEachOf: points) { p, id in
            r.pairs += 1
            if id < nc { r.circlePairs += 1 }
            if p != last { r.inAny += 1; last = p }
        }
        r.wall = now() - w0
        r.cpu = NMEABench.threadCPU() - c0
        return r
    }

    /// Remove, re-insert and move 10,000 random regions while ~110,000 are in: µs per
    /// operation, for all of them and for the circles and the polygons among them (a polygon
    /// insert also builds its raster in each cell). Moved shapes (~110 m north) are built
    /// beforehand: this times the index.
    static func churn(_ data: GeofenceData, _ index: RegionShapeIndex<Int32>, _ shapes: [RegionShape]) {
        var random = SystemRandomNumberGenerator()
        let nc = data.circleCount
        let ids = Array(Set((0..<10_000).map { _ in Int32.random(in: 0..<Int32(shapes.count), using: &random) }))
        // About as many polygons as circles, so that both figures rest on thousands of operations.
        let polygonIDs = Array(Set((0..<5_000).map { _ in Int32.random(in: Int32(nc)..<Int32(shapes.count), using: &random) }))
        var ignored = 0
        func moved(_ id: Int32) -> RegionShape {
            let i = Int(id)
            return i < nc ? try! circleShape(data, i, latitudeOffset: 0.001) : try! polygonShape(data, i - nc, latitudeOffset: 0.001, selfIntersecting: &ignored)
        }
        func time(_ ids: [Int32]) -> (remove: Double, insert: Double, update: Double) {
            let movedShapes = ids.map(moved)
            let t0 = now()
            for id in ids { index.remove(id) }
            let t1 = now()
            for id in ids { index.insert(id, shapes[Int(id)]) }
            let t2 = now()
            for (k, id) in ids.enumerated() { index.update(id, movedShapes[k]) }
            for id in ids { index.update(id, shapes[Int(id)]) }
            let t3 = now()
            let n = Double(ids.count)
            return ((t1 - t0) / n * 1e6, (t2 - t1) / n * 1e6, (t3 - t2) / (2 * n) * 1e6)
        }
        let all = time(ids)
        let circles = time(ids.filter { Int($0) < nc })
        let polygons = time(polygonIDs)
        print(String(format: "churn at %d regions: remove %.2f µs, insert %.2f µs, update %.2f µs per op (%d random ids); circles %.2f / %.2f / %.2f µs; polygons %.2f / %.2f / %.2f µs (%d ids)",
                     index.count, all.remove, all.insert, all.update, ids.count, circles.remove, circles.insert, circles.update,
                     polygons.remove, polygons.insert, polygons.update, polygonIDs.count))
    }

    /// Untimed: each point's hits (count and id sum) from the index against the plain path,
    /// `RegionIndex` candidates tested with `RegionShape.contains` — every 8th point, or all
    /// with GEOFENCE_CHECK=all (the plain path is ~15× slower).
    static func checkAgainstShapes(_ data: GeofenceData, _ index: RegionShapeIndex<Int32>, _ shapes: [RegionShape]) throws {
        let step = ProcessInfo.processInfo.environment["GEOFENCE_CHECK"] == "all" ? 1 : 8
        let boxes = RegionIndex<Int32>(cellDegrees: 0.004)
        for (id, shape) in shapes.enumerated() { boxes.insert(Int32(id), shape.boundingBox) }
        var differing = 0, pairs = 0, checked = 0
        let t0 = now()
        for p in stride(from: 0, to: data.pointLatitudes.count, by: step) {
            checked += 1
            let c = Coordinate(latitude: data.pointLatitudes[p], longitude: data.pointLongitudes[p])
            var count = 0, sum = 0, expectedCount = 0, expectedSum = 0
            index.forEachRegion(containing: c) { id in count += 1; sum += Int(id) }
            boxes.query(c) { id in
                if shapes[Int(id)].contains(c) { expectedCount += 1; expectedSum += Int(id) }
            }
            pairs += expectedCount
            if count != expectedCount || sum != expectedSum { differing += 1 }
        }
        print(String(format: "check on %d points: RegionIndex + RegionShape.contains finds %d pairs (%.0f q/s); points whose hits differ from RegionShapeIndex: %d",
                     checked, pairs, Double(checked) / (now() - t0), differing))
    }

    static func residentKiB() -> Int { statusKiB("VmRSS:") }
    static func peakKiB() -> Int { statusKiB("VmHWM:") }
    static func statusKiB(_ field: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }) else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}

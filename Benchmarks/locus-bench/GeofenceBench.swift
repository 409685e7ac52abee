import Foundation
import LocusCore
import LocusRegions

/// `geofence DIR [CELL_DEGREES]`: issue 5's scale benchmark on geofence_bench.py's data set —
/// 100,000 circles + 10,000 polygons, 1,000,000 points — through `RegionIndex` and an exact
/// test (benchmark-local, see GeofenceExact.swift), on one thread. Prints build time, insert /
/// remove / update cost at full size, queries per second (wall and this thread's CPU), hit
/// counts, the index's memory, and a check of the counts against shapely's planar model.
enum GeofenceBench {
    static func run(directory: String, cellDegrees: Double) throws {
        let rss0 = residentKiB()
        let data = try GeofenceData(directory: directory)
        let rssData = residentKiB()
        let nc = data.circleCount, np = data.polygonCount, npts = data.pointLatitudes.count
        print("geofence data: \(nc) circles, \(np) polygons, \(npts) points (\(rssData - rss0) KiB loaded)")

        // Build: boxes from centre + radius (geodesic) and from polygon vertices, then inserts.
        let t0 = now()
        let boxes = (0..<nc).map { circleBox(data, $0) } + (0..<np).map { polygonBox(data, $0) }
        let t1 = now()
        let index = RegionIndex<Int32>(cellDegrees: cellDegrees)
        for (id, box) in boxes.enumerated() { index.insert(Int32(id), box) }
        let t2 = now()
        let rssIndex = residentKiB()
        print(String(format: "build: boxes %.3f s, index %.3f s (%d regions, %.2f µs/insert); index ~%.1f MB (estimate), RSS +%d KiB",
                     t1 - t0, t2 - t1, index.count, (t2 - t1) / Double(index.count) * 1e6,
                     Double(index.approximateBytes) / 1e6, rssIndex - rssData))

        var circles = GeodesicCircles(latitudes: data.circleLatitudes, longitudes: data.circleLongitudes, radii: data.circleRadii)
        let (pairs, circlePairs, inAny, candidates, wall, cpu) = queryAll(data, index, &circles)
        print(String(format: "locus-geofence points=%d secs=%.3f q/s=%.0f cpu_q/s=%.0f hits=%d circle_hits=%d poly_hits=%d points_in_any=%d candidates/query=%.2f geodesic_fallbacks=%d",
                     npts, wall, Double(npts) / wall, Double(npts) / cpu, pairs, circlePairs, pairs - circlePairs, inAny,
                     Double(candidates) / Double(npts), circles.fallbacks))

        let (boxHits, indexWall, indexCPU) = queryIndexOnly(data, index)
        print(String(format: "index alone (box candidates, no exact test): q/s=%.0f cpu_q/s=%.0f candidates=%d",
                     Double(npts) / indexWall, Double(npts) / indexCPU, boxHits))
        churn(index, boxes)
        compareWithShapelyModel(data, index, circles)
        print("peak RSS \(peakKiB()) KiB")
    }

    /// The timed loop: index query, then the exact test of each candidate.
    static func queryAll(_ data: GeofenceData, _ index: RegionIndex<Int32>, _ circles: inout GeodesicCircles)
        -> (Int, Int, Int, Int, Double, Double) {
        let nc = Int32(data.circleCount)
        var pairs = 0, circlePairs = 0, inAny = 0, candidates = 0
        let w0 = now(), c0 = NMEABench.threadCPU()
        data.vertices.withUnsafeBufferPointer { vertices in
            do {
                for p in data.pointLatitudes.indices {
                    let lat = data.pointLatitudes[p], lon = data.pointLongitudes[p]
                    var hits = 0
                    index.query(Coordinate(latitude: lat, longitude: lon)) { id in
                        candidates += 1
                        if id < nc {
                            if circles.contains(Int(id), lat, lon) { hits += 1; circlePairs += 1 }
                        } else {
                            let k = Int(id - nc)
                            if polygonContains(lat, lon, vertices: vertices,
                                               range: data.polygonStarts[k]..<data.polygonStarts[k + 1]) { hits += 1 }
                        }
                    }
                    pairs += hits
                    if hits > 0 { inAny += 1 }
                }
            }
        }
        return (pairs, circlePairs, inAny, candidates, now() - w0, NMEABench.threadCPU() - c0)
    }

    /// The index's share of the query cost: candidates only.
    static func queryIndexOnly(_ data: GeofenceData, _ index: RegionIndex<Int32>) -> (Int, Double, Double) {
        var candidates = 0
        let w0 = now(), c0 = NMEABench.threadCPU()
        for p in data.pointLatitudes.indices {
            index.query(Coordinate(latitude: data.pointLatitudes[p], longitude: data.pointLongitudes[p])) { _ in candidates += 1 }
        }
        return (candidates, now() - w0, NMEABench.threadCPU() - c0)
    }

    /// A circle's box: the geodesic destinations north, east, south and west at 1.01·r. The 1%
    /// covers the circle's true longitude extremes (reached slightly poleward of due east/west)
    /// and shapely's planar circle, 0.3% wider in degrees here, which the comparison tests.
    static func circleBox(_ data: GeofenceData, _ i: Int) -> GeoBox {
        let c = Coordinate(latitude: data.circleLatitudes[i], longitude: data.circleLongitudes[i])
        let r = data.circleRadii[i] * 1.01
        let n = Geodesic.destination(from: c, bearing: 0, distance: r)
        let e = Geodesic.destination(from: c, bearing: 90, distance: r)
        let s = Geodesic.destination(from: c, bearing: 180, distance: r)
        let w = Geodesic.destination(from: c, bearing: 270, distance: r)
        return GeoBox(minLatitude: s.latitude, maxLatitude: n.latitude, minLongitude: w.longitude, maxLongitude: e.longitude)
    }

    /// A polygon's box: its vertices' extremes (this data set is far from the antimeridian).
    static func polygonBox(_ data: GeofenceData, _ k: Int) -> GeoBox {
        let range = data.polygonStarts[k]..<data.polygonStarts[k + 1]
        let lats = data.vertexLatitudes[range], lons = data.vertexLongitudes[range]
        return GeoBox(minLatitude: lats.min()!, maxLatitude: lats.max()!, minLongitude: lons.min()!, maxLongitude: lons.max()!)
    }

    /// Remove, re-insert and move 10,000 random regions while ~110,000 are in: µs per operation.
    static func churn(_ index: RegionIndex<Int32>, _ boxes: [GeoBox]) {
        var random = SystemRandomNumberGenerator()
        let ids = (0..<10_000).map { _ in Int32.random(in: 0..<Int32(boxes.count), using: &random) }
        let unique = Array(Set(ids))
        let t0 = now()
        for id in unique { index.remove(id) }
        let t1 = now()
        for id in unique { index.insert(id, boxes[Int(id)]) }
        let t2 = now()
        // Move each by ~100 m north and back: an update is a remove plus an insert.
        for id in unique {
            var b = boxes[Int(id)]
            b.minLatitude += 0.001; b.maxLatitude += 0.001
            index.update(id, b)
        }
        for id in unique { index.update(id, boxes[Int(id)]) }
        let t3 = now()
        let n = Double(unique.count)
        print(String(format: "churn at %d regions: remove %.2f µs, insert %.2f µs, update %.2f µs per op (%d ids)",
                     index.count, (t1 - t0) / n * 1e6, (t2 - t1) / n * 1e6, (t3 - t2) / (2 * n) * 1e6, unique.count))
    }

    /// Untimed: every candidate pair classified by geofence_bench.py's planar model (exact
    /// circles and 32-gons) and by the geodesic test, to reproduce shapely's checksums and to
    /// show where and why the geodesic counts differ.
    static func compareWithShapelyModel(_ data: GeofenceData, _ index: RegionIndex<Int32>, _ circles: GeodesicCircles) {
        let nc = Int32(data.circleCount)
        var planar = 0, gon = 0, polygons = 0, gonInAny = 0, planarInAny = 0
        var planarOnly = 0, geodesicOnly = 0, worstOutside = 0.0, worstInside = 0.0, localErrorMax = 0.0, bandChecked = 0, bandDisagree = 0
        data.vertices.withUnsafeBufferPointer { vertices in
            do {
                for p in data.pointLatitudes.indices {
                    let lat = data.pointLatitudes[p], lon = data.pointLongitudes[p]
                    var planarHits = 0, gonHits = 0
                    index.query(Coordinate(latitude: lat, longitude: lon)) { id in
                        if id >= nc {
                            let k = Int(id - nc)
                            if polygonContains(lat, lon, vertices: vertices,
                                               range: data.polygonStarts[k]..<data.polygonStarts[k + 1]) {
                                polygons += 1; planarHits += 1; gonHits += 1
                            }
                            return
                        }
                        let i = Int(id), r = circles.circles[i].radius
                        let clat = circles.circles[i].latitude, clon = circles.circles[i].longitude
                        let inPlanar = ShapelyPlanarModel.inCircle(lat, lon, clat, clon, r)
                        if inPlanar { planar += 1; planarHits += 1 }
                        if ShapelyPlanarModel.in32gon(lat, lon, clat, clon, r) { gon += 1; gonHits += 1 }
                        let local = circles.localDistance(i, lat, lon)
                        guard abs(local - r) < 0.01 * r else {
                            if inPlanar != (local <= r) { planarOnly += inPlanar ? 1 : 0; geodesicOnly += inPlanar ? 0 : 1 }
                            return
                        }
                        // Near the boundary: the geodesic truth, and the fast test's agreement with it.
                        let g = circles.geodesicDistance(i, lat, lon)
                        bandChecked += 1
                        localErrorMax = max(localErrorMax, abs(local - g) / g)
                        var fast = circles
                        if fast.contains(i, lat, lon) != (g <= r) { bandDisagree += 1 }
                        if inPlanar && g > r { planarOnly += 1; worstOutside = max(worstOutside, g - r) }
                        if !inPlanar && g <= r { geodesicOnly += 1; worstInside = max(worstInside, r - g) }
                    }
                    if planarHits > 0 { planarInAny += 1 }
                    if gonHits > 0 { gonInAny += 1 }
                }
            }
        }
        print("shapely model (planar, recomputed here): circles exact \(planar) (shapely exact: 2900260), as 32-gons \(gon) (shapely: 2881411), polygons \(polygons) (shapely: 773000), pairs with 32-gons \(gon + polygons) (shapely: 3654411), points in any with 32-gons \(gonInAny) (shapely: 974213), points in any with exact circles \(planarInAny)")
        print(String(format: "planar vs geodesic circles: %d pairs inside only the planar circle (geodesic distance up to %.3f m beyond r), %d only inside the geodesic one (up to %.3f m within r)",
                     planarOnly, worstOutside, geodesicOnly, worstInside))
        print(String(format: "fast circle test vs Geodesic.distance on %d pairs within 1%% of r: %d disagree; local distance relative error max %.2e",
                     bandChecked, bandDisagree, localErrorMax))
    }

    static func residentKiB() -> Int { statusKiB("VmRSS:") }
    static func peakKiB() -> Int { statusKiB("VmHWM:") }
    static func statusKiB(_ field: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }) else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}

import Foundation
@_spi(Benchmarks) @testable import LocusRegions
import LocusCore
import Testing

@Suite struct RegionShapeIndexTests {
    /// Circles from 5 m to 3000 km (fine cells, coarse cells, the scanned list), near poles and
    /// across the antimeridian; star polygons, some across the antimeridian. Points: uniform,
    /// near centres, and a hair (1 µm … 1 cm) either side of circle boundaries, where the
    /// index's distance bounds hand over to the geodesic.
    @Test(arguments: [(UInt64(1), 0.004), (2, 0.05), (3, 1.0)])
    func answersEqualShapeContainsForEveryRegion(seed: UInt64, cellDegrees: Double) throws {
        var random = IndexTestRandom(seed: seed)
        let index = RegionShapeIndex<Int>(cellDegrees: cellDegrees)
        var shapes: [Int: RegionShape] = [:]
        for id in 0..<300 {
            let shape = try random.shape()
            shapes[id] = shape
            #expect(index.insert(id, shape))
        }
        #expect(index.count == 300)
        try expectSameAnswers(index, shapes, &random, points: 3000)

        // Churn: remove a third, move a third, re-insert some; answers follow.
        for id in 0..<100 { #expect(index.remove(id)); shapes[id] = nil }
        for id in 100..<200 { let s = try random.shape(); #expect(index.update(id, s)); shapes[id] = s }
        for id in 0..<30 { let s = try random.shape(); #expect(index.insert(id, s)); shapes[id] = s }
        #expect(!index.remove(50))
        #expect(!index.update(60, shapes[150]!))
        #expect(index.count == shapes.count)
        #expect(index.shape(of: 150) == shapes[150])
        #expect(index.shape(of: 60) == nil)
        try expectSameAnswers(index, shapes, &random, points: 3000)
    }

    func expectSameAnswers(_ index: RegionShapeIndex<Int>, _ shapes: [Int: RegionShape], _ random: inout IndexTestRandom,
                           points: Int) throws {
        let list = Array(shapes.values)
        var batchPoints: [Coordinate] = []
        var expected: [[Int]] = []
        for _ in 0..<points {
            let p = try random.point(near: list)
            let found = index.regions(containing: p)
            let truth = shapes.filter { $0.value.contains(p) }.map(\.key).sorted()
            #expect(found == truth, "point \(p)")
            if found != truth { return }
            batchPoints.append(p)
            expected.append(truth)
        }
        var batch = Array(repeating: [Int](), count: batchPoints.count)
        index.forEachRegion(containingEachOf: batchPoints) { i, id in batch[i].append(id) }
        #expect(batch.map { $0.sorted() } == expected)
    }

    /// A polygon's vertices at its box's extremes lie exactly on the box edges and cell
    /// boundaries the index files it under: the index must still hand them to the polygon test
    /// (boundary points are inside), and box corners of circles and polygons must get the
    /// shape's own answer. Several polygons sharing a cell exercise the per-cell scan too.
    @Test(arguments: [0.004, 0.05])
    func pointsOnBoxEdgesGetTheShapesOwnAnswer(cellDegrees: Double) throws {
        var random = IndexTestRandom(seed: 11)
        let index = RegionShapeIndex<Int>(cellDegrees: cellDegrees)
        var shapes: [Int: RegionShape] = [:]
        var points: [Coordinate] = []
        for id in 0..<300 {
            let shape: RegionShape
            if id % 3 == 0 {
                shape = try random.shape()
            } else {
                // A small star polygon (simple: sorted angles), its vertices kept as query points.
                let latitude = Double.random(in: -80...80, using: &random), longitude = Double.random(in: -179...179, using: &random)
                let size = Double.random(in: 0.0005...0.02, using: &random)
                let angles = (0..<Int.random(in: 3...10, using: &random)).map { _ in Double.random(in: 0..<(2 * .pi), using: &random) }.sorted()
                var ring = angles.map { a -> Coordinate in
                    let r = size * .random(in: 0.5...1, using: &random)
                    return Coordinate(latitude: latitude + r * sin(a), longitude: longitude + r * cos(a))
                }
                points += ring
                ring.append(ring[0])
                guard let polygon = try? RegionShape.polygons([[ring]]) else { continue }
                shape = polygon
            }
            shapes[id] = shape
            index.insert(id, shape)
            let box = shape.boundingBox
            for latitude in [box.minLatitude, box.maxLatitude] {
                for longitude in [box.minLongitude, box.maxLongitude] { points.append(Coordinate(latitude: latitude, longitude: longitude)) }
            }
        }
        var inside = 0
        for p in points {
            let truth = shapes.filter { $0.value.contains(p) }.map(\.key).sorted()
            inside += truth.isEmpty ? 0 : 1
            #expect(index.regions(containing: p) == truth, "point \(p)")
        }
        // Vertices are inside their polygon: the edge cases really were exercised.
        #expect(inside > 500)
    }

    /// Polygons about a cell in size, where the per-cell raster (`PolygonCellCoverage`) answers
    /// most queries: the index must still give `PolygonRegion.contains`'s answer a hair (1e-13°
    /// to 1e-5°) either side of every edge and on the vertices, and must file no entry in a
    /// cell its box covers but the polygon misses.
    @Test func polygonsAnsweredFromTheirRasterAgreeWithTheShapeNearEdges() throws {
        var random = IndexTestRandom(seed: 21)
        let index = RegionShapeIndex<Int>(cellDegrees: 0.004)
        var shapes: [Int: RegionShape] = [:]
        var rings: [[Coordinate]] = []
        for id in 0 ..< 200 {
            let latitude = Double.random(in: 52.5 ... 52.6, using: &random), longitude = Double.random(in: 13.3 ... 13.5, using: &random)
            let size = Double.random(in: 0.0005 ... 0.01, using: &random)
            let angles = (0 ..< Int.random(in: 3 ... 16, using: &random)).map { _ in Double.random(in: 0 ..< 2 * .pi, using: &random) }.sorted()
            var ring = angles.map { a in
                Coordinate(latitude: latitude + size * .random(in: 0.5 ... 1, using: &random) * sin(a),
                           longitude: longitude + size * .random(in: 0.5 ... 1, using: &random) * cos(a))
            }
            ring.append(ring[0])
            guard let shape = try? RegionShape.polygons([[ring]]) else { continue }
            shapes[id] = shape
            rings.append(ring)
            index.insert(id, shape)
        }
        var points: [Coordinate] = []
        for ring in rings {
            for i in 0 ..< ring.count - 1 {
                let a = ring[i], b = ring[i + 1]
                points.append(a)
                let dx = b.longitude - a.longitude, dy = b.latitude - a.latitude, length = (dx * dx + dy * dy).squareRoot()
                for hair in [0, 1e-13, 1e-11, 1e-9, 1e-7, 1e-5] {
                    let t = Double.random(in: 0 ... 1, using: &random), side = Bool.random(using: &random) ? 1.0 : -1.0
                    points.append(Coordinate(latitude: a.latitude + t * dy + side * hair * dx / length,
                                             longitude: a.longitude + t * dx - side * hair * dy / length))
                }
            }
        }
        var inside = 0
        for p in points {
            let truth = shapes.filter { $0.value.contains(p) }.map(\.key).sorted()
            inside += truth.isEmpty ? 0 : 1
            #expect(index.regions(containing: p) == truth, "point \(p)")
        }
        #expect(inside > points.count / 3)

        // An L-shaped polygon whose box covers 3 × 3 cells but whose arms miss the cell at the
        // top right (and its neighbours' far parts): that cell holds no entry.
        let l = RegionShapeIndex<Int>(cellDegrees: 0.01)
        l.insert(1, try .polygons([[ring([(0.001, 0.001), (0.029, 0.001), (0.029, 0.009), (0.009, 0.009), (0.009, 0.029), (0.001, 0.029), (0.001, 0.001)])]]))
        #expect(l.fine.entryCount == 5)
        #expect(l.regions(containing: at(0.025, 0.025)) == [])
        #expect(l.regions(containing: at(0.025, 0.005)) == [1])
    }

    @Test func aCircleAcrossTheAntimeridianIsReportedOnceOnEitherSide() throws {
        let index = RegionShapeIndex<String>()
        index.insert("fiji", try .circle(center: Coordinate(latitude: -17, longitude: 179.99), radius: 5_000))
        #expect(index.regions(containing: Coordinate(latitude: -17, longitude: 179.995)) == ["fiji"])
        #expect(index.regions(containing: Coordinate(latitude: -17, longitude: -179.99)) == ["fiji"])
        #expect(index.regions(containing: Coordinate(latitude: -17, longitude: 180.01)) == ["fiji"])  // reduced to -179.99
        #expect(index.regions(containing: Coordinate(latitude: -17, longitude: -179.9)) == [])
    }

    @Test func aPolarCircleContainsThePoleAtEveryLongitude() throws {
        let index = RegionShapeIndex<String>()
        index.insert("pole", try .circle(center: Coordinate(latitude: 89.9, longitude: 10), radius: 20_000))
        #expect(index.regions(containing: Coordinate(latitude: 90, longitude: -123)) == ["pole"])
        #expect(index.regions(containing: Coordinate(latitude: 89.95, longitude: -170)) == ["pole"])
        #expect(index.regions(containing: Coordinate(latitude: 89.5, longitude: -170)) == [])
    }

    @Test func invalidPointsAreInNoRegion() throws {
        let index = RegionShapeIndex<Int>()
        index.insert(1, try .circle(center: Coordinate(latitude: 0, longitude: 0), radius: 9_000_000))
        #expect(index.regions(containing: Coordinate(latitude: .nan, longitude: 0)) == [])
        #expect(index.regions(containing: Coordinate(latitude: 0, longitude: .infinity)) == [])
        #expect(index.regions(containing: Coordinate(latitude: 91, longitude: 0)) == [])
        #expect(index.regions(containing: Coordinate(latitude: 0, longitude: 0)) == [1])
    }

    @Test func aSelfIntersectingRingLoadsOnlyThroughTheBenchmarkInitialiserAndIsEvenOdd() throws {
        // A bow tie: the two triangles meet at (1, 1).
        let bowTie = ring([(0, 0), (2, 2), (2, 0), (0, 2), (0, 0)])
        #expect(throws: RegionGeometryError.self) { try PolygonRegion(polygons: [[bowTie]]) }
        let region = try PolygonRegion(selfIntersectingPolygons: [[bowTie]])
        #expect(region.contains(at(1, 0.2)))   // the left triangle: latitude 1, longitude 0.2
        #expect(region.contains(at(1, 1.8)))
        #expect(!region.contains(at(0.2, 1)))  // below the crossing, between the triangles
    }
}

extension RegionShapeIndex {
    /// The query's answer as a sorted array (the query itself promises no order).
    func regions(containing c: Coordinate) -> [ID] where ID: Comparable {
        var found: [ID] = []
        forEachRegion(containing: c) { found.append($0) }
        return found.sorted()
    }
}

extension IndexTestRandom {
    /// A circle (mostly small, some up to 3000 km) or a star polygon (some across the antimeridian).
    mutating func shape() throws -> RegionShape {
        let latitude = Double.random(in: -84...84, using: &self)
        let longitude = Int.random(in: 0..<5, using: &self) == 0 ? Double.random(in: 179.5..<180, using: &self)
            : Double.random(in: -180..<180, using: &self)
        if Bool.random(using: &self) {
            let radius: Double = switch Int.random(in: 0..<10, using: &self) {
            case 0..<6: .random(in: 5...500, using: &self)
            case 6..<9: .random(in: 500...100_000, using: &self)
            default: .random(in: 100_000...3_000_000, using: &self)
            }
            let polar = Int.random(in: 0..<10, using: &self) == 0
            return try .circle(center: Coordinate(latitude: polar ? .random(in: 85...90, using: &self) : latitude, longitude: longitude),
                               radius: radius)
        }
        // Star polygon: sorted angles, radii in [0.5, 1] of the size: simple.
        let size = Double.random(in: 0.001...2, using: &self)
        let n = Int.random(in: 3...12, using: &self)
        let angles = (0..<n).map { _ in Double.random(in: 0..<(2 * .pi), using: &self) }.sorted()
        var ring = angles.map { a -> Coordinate in
            let r = size * .random(in: 0.5...1, using: &self)
            return Coordinate(latitude: max(-85, min(85, latitude + r * sin(a))), longitude: longitude + r * cos(a))
        }
        ring.append(ring[0])
        do { return try .polygons([[ring]]) } catch { return try .circle(center: Coordinate(latitude: latitude, longitude: longitude), radius: 1000) }
    }

    /// A point: uniform, near a region, or within 1 µm … 1 cm of a circle's boundary.
    mutating func point(near shapes: [RegionShape]) throws -> Coordinate {
        guard let shape = shapes.randomElement(using: &self) else { return Coordinate(latitude: 0, longitude: 0) }
        switch (Int.random(in: 0..<4, using: &self), shape) {
        case (0, _):
            return Coordinate(latitude: .random(in: -90...90, using: &self), longitude: .random(in: -180..<180, using: &self))
        case (1, .circle(let circle)), (2, .circle(let circle)):
            let hair = [1e-6, 1e-4, 1e-2][Int.random(in: 0..<3, using: &self)] * (Bool.random(using: &self) ? 1 : -1)
            return Geodesic.destination(from: circle.center, bearing: .random(in: 0..<360, using: &self), distance: circle.radius + hair)
        default:
            let b = shape.boundingBox
            let width = b.crossesAntimeridian ? b.maxLongitude + 360 - b.minLongitude : b.maxLongitude - b.minLongitude
            return Coordinate(latitude: .random(in: b.minLatitude...b.maxLatitude, using: &self),
                              longitude: b.minLongitude + .random(in: 0...width, using: &self))
        }
    }
}

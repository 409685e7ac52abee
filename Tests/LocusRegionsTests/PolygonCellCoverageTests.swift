import Foundation
import LocusCore
@testable import LocusRegions
import Testing

/// `PolygonCellCoverage` answers a polygon query from an 8 × 8 raster in the cell when it can;
/// every answer it gives must be exactly `PolygonRegion.contains`, boundary points and points a
/// hair from an edge included, and it must decide most of a cell for the speed-up to exist.
@Suite struct PolygonCellCoverageTests {
    /// Random shapes of `ContainmentPropertyTests` (holes, MultiPolygons, near the poles, across
    /// the antimeridian) in cells from 1/20 to 3 times their size; query points uniform, inside,
    /// on vertices, and from 5e-10° to 1 % of the size off vertices and edges, plus points on
    /// the raster's own sub-cell lines.
    @Test func decidedSubCellsGiveThePolygonTestsAnswer() {
        var decided = 0, compared = 0, cells = 0
        for seed in ContainmentPropertyTests.seeds(count: 400, property: 10) {
            var random = PropertyRandom(seed: seed)
            let shape = random.shape()
            guard let region = try? PolygonRegion(polygons: shape.geoJSONPolygons), !region.boundingBox.crossesAntimeridian else { continue }
            let cellDegrees = shape.scale * random.logUniform(-1.3 ... 0.5)
            let grid = GridView<Int>(cellDegrees: cellDegrees, cellsPerDegree: 1 / cellDegrees, tiles: TileTable(),
                                     cells: .allocate(capacity: 0), entryCount: 0)
            defer { grid.cells.deallocate(); grid.tiles.deallocate() }
            var coverages: [Int64: PolygonCellCoverage] = [:]
            func check(_ c: Coordinate) -> Bool {
                let longitude = RegionShapeIndex<Int>.normalizedLongitude(c.longitude)
                guard region.boundingBox.contains(Coordinate(latitude: c.latitude, longitude: longitude)) else { return true }
                let r = grid.row(c.latitude), col = grid.column(longitude)
                let coverage = coverages[r << 32 | col] ?? {
                    cells += 1
                    return PolygonCellCoverage(region, box: region.boundingBox, cornerLatitude: grid.cornerLatitude(r),
                                               cornerLongitude: grid.cornerLongitude(col), cellDegrees: cellDegrees)
                }()
                coverages[r << 32 | col] = coverage
                compared += 1
                guard let answer = coverage.contains(latitudeFromCorner: c.latitude - grid.cornerLatitude(r),
                                                     longitudeFromCorner: longitude - grid.cornerLongitude(col)) else { return true }
                decided += 1
                guard answer == region.contains(c) else {
                    ContainmentPropertyTests.fail(seed, "\(shape.summary), cell \(cellDegrees)°: the raster says \(answer) at lat \(c.latitude), lon \(c.longitude)")
                    return false
                }
                return true
            }
            for _ in 0 ..< 60 { guard check(random.point(for: shape).coordinate) else { return } }
            // Points on sub-cell lines of cells already built: where rounding decides which
            // sub-cell a point falls in.
            for (key, coverage) in coverages {
                let r = key >> 32, col = key & 0xFFFF_FFFF
                for k in 0 ... 8 {
                    let latitude = grid.cornerLatitude(r) + Double(coverage.minLatitude) + Double(k) / Double(coverage.latitudeScale)
                    let longitude = grid.cornerLongitude(col) + Double(coverage.minLongitude) + random.uniform(0 ... 8) / Double(coverage.longitudeScale)
                    guard check(Coordinate(latitude: latitude, longitude: longitude)) else { return }
                    let across = grid.cornerLongitude(col) + Double(coverage.minLongitude) + Double(k) / Double(coverage.longitudeScale)
                    let along = grid.cornerLatitude(r) + Double(coverage.minLatitude) + random.uniform(0 ... 8) / Double(coverage.latitudeScale)
                    guard check(Coordinate(latitude: along, longitude: across)) else { return }
                }
            }
        }
        #expect(cells > 1000 && compared > 10_000, "\(cells) cells, \(compared) points")
        // The raster must answer most points: otherwise it is only a cost.
        #expect(decided * 10 >= compared * 6, "the raster decided \(decided) of \(compared) points")
    }

    @Test func aCellInsideTheRegionOrInAHoleIsDecidedWhole() throws {
        let region = try PolygonRegion(polygons: [[square(lon: 10 ... 11, lat: 50 ... 51), square(lon: 10.4 ... 10.6, lat: 50.4 ... 50.6)]])
        let inside = PolygonCellCoverage(region, box: region.boundingBox, cornerLatitude: 50.1, cornerLongitude: 10.1, cellDegrees: 0.01)
        #expect(inside.decided == ~0 && inside.inside == ~0)
        let hole = PolygonCellCoverage(region, box: region.boundingBox, cornerLatitude: 50.45, cornerLongitude: 10.45, cellDegrees: 0.01)
        #expect(hole.decided == ~0 && hole.inside == 0)
        // The hole's edge crosses this cell: some sub-cells mixed, some inside, some in the hole.
        let edge = PolygonCellCoverage(region, box: region.boundingBox, cornerLatitude: 50.45, cornerLongitude: 10.595, cellDegrees: 0.01)
        #expect(edge.decided != ~0 && edge.decided & edge.inside != 0 && edge.decided & ~edge.inside != 0)
        #expect(edge.contains(latitudeFromCorner: 0.005, longitudeFromCorner: 0.003) == false)   // in the hole
        #expect(edge.contains(latitudeFromCorner: 0.005, longitudeFromCorner: 0.005) == nil)      // on its edge: mixed
        #expect(edge.contains(latitudeFromCorner: 0.005, longitudeFromCorner: 0.0099) == true)
    }

    @Test func theRasterSpansTheBoxPartInTheCellAndPointsBeyondItAreOutside() throws {
        // A 100 m triangle in a 0.1° cell: the frame is the triangle's box, not the cell.
        let region = try PolygonRegion(polygons: [[ring([(10.05, 50.05), (10.0514, 50.05), (10.05, 50.0509), (10.05, 50.05)])]])
        let coverage = PolygonCellCoverage(region, box: region.boundingBox, cornerLatitude: 50, cornerLongitude: 10, cellDegrees: 0.1)
        #expect(abs(8 / Double(coverage.longitudeScale) - 0.0014) < 1e-8)
        #expect(coverage.contains(latitudeFromCorner: 0.05017, longitudeFromCorner: 0.05026) == true)  // sub-cell (1, 1), inside
        #expect(coverage.contains(latitudeFromCorner: 0.0508, longitudeFromCorner: 0.0513) == false)  // the far corner of the box
        #expect(coverage.contains(latitudeFromCorner: 0.02, longitudeFromCorner: 0.02) == false)      // in the cell, off the box
    }

    /// An edge exactly on the raster's border: points a hair outside it still map to the
    /// border sub-cells (the mapping's slack), so those must be mixed, not "inside".
    @Test func anEdgeOnTheRastersBorderLeavesTheBorderSubCellsMixed() throws {
        // 1/64 is exact in Float and Double: the raster's west border is the polygon's west edge.
        let west = 0.015625
        let region = try PolygonRegion(polygons: [[square(lon: west ... 0.09, lat: -0.01 ... 0.09)]])
        let coverage = PolygonCellCoverage(region, box: region.boundingBox, cornerLatitude: 0, cornerLongitude: 0, cellDegrees: 0.08)
        #expect(Double(coverage.minLongitude) == west)
        for latitude in stride(from: 0.001, to: 0.08, by: 0.0097) {
            for offset in [-1e-13, -1e-15, 0, 1e-15] {
                let c = at(latitude, west + offset)
                if let answer = coverage.contains(latitudeFromCorner: latitude, longitudeFromCorner: west + offset) {
                    #expect(answer == region.contains(c), "lat \(latitude), lon \(west) + \(offset)")
                }
            }
            #expect(coverage.contains(latitudeFromCorner: latitude, longitudeFromCorner: 0.05) == true)
        }
    }

    @Test func aRegionWithManyEdgesIsLeftToThePolygonTest() throws {
        let n = PolygonCellCoverage.maximumEdges + 10
        var circle = (0 ..< n).map { k in at(50 + 0.01 * sin(Double(k) * 2 * .pi / Double(n)), 10 + 0.01 * cos(Double(k) * 2 * .pi / Double(n))) }
        circle.append(circle[0])
        let region = try PolygonRegion(polygons: [[circle]])
        let coverage = PolygonCellCoverage(region, box: region.boundingBox, cornerLatitude: 49.99, cornerLongitude: 9.99, cellDegrees: 0.02)
        #expect(coverage.decided == 0)
        #expect(coverage.contains(latitudeFromCorner: 0.01, longitudeFromCorner: 0.01) == nil)
    }

    @Test func segmentTouchIsNeverMissed() {
        let low = PlanePoint(x: 0, y: 0), high = PlanePoint(x: 1, y: 1)
        func touches(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double) -> Bool {
            PolygonCellCoverage.segment(PlanePoint(x: ax, y: ay), PlanePoint(x: bx, y: by), mayTouch: low, high)
        }
        #expect(touches(-1, 0.5, 2, 0.5))            // straight through
        #expect(touches(0.2, 0.2, 0.3, 0.3))         // inside
        #expect(touches(-1, 1, 1, -1))               // diagonal through the corner (0, 0)
        #expect(touches(1, 1, 2, 3))                 // ends on a corner
        #expect(touches(-1, 2, 2, -1))               // clips the corner region
        #expect(touches(0, 2, 0, -1))                // along an edge
        #expect(!touches(-1, 3.5, 3.5, -1))          // passes by the corner (1, 1) outside
        #expect(!touches(1.0000001, -5, 1.0000001, 5))
        #expect(!touches(2, 2, 3, 3))                // on the diagonal's line, beyond the box
    }
}

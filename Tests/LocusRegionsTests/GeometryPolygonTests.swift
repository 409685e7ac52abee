import LocusCore
import LocusRegions
import Testing

@Suite struct GeometryPolygonTests {
    /// A 1° square at the equator with a 0.2° square hole in the middle.
    static let withHole = try! PolygonRegion(polygons: [[square(lon: 0 ... 1, lat: 0 ... 1), square(lon: 0.4 ... 0.6, lat: 0.4 ... 0.6)]])

    @Test func theHoleIsOutsideAndTheRingInside() {
        let p = Self.withHole
        #expect(p.contains(at(0.2, 0.2)))
        #expect(p.contains(at(0.9, 0.5)))
        #expect(!p.contains(at(0.5, 0.5)))   // in the hole
        #expect(!p.contains(at(0.5, 1.5)))   // east of the square
        #expect(!p.contains(at(-0.1, 0.5)))  // south
        #expect(!p.contains(at(0.5, 0.5 + 360 * 1.5)))  // another frame of longitude, 180° away
        #expect(p.contains(at(0.2, 0.2 + 360)))         // the same point written with lon + 360
    }

    /// Boundary convention: edges and vertices, of the outer ring and of holes, belong to the region.
    @Test(arguments: [at(0, 0.5), at(0, 0), at(1, 1), at(0.5, 1), at(0.3, 0), at(0.5, 0.4), at(0.4, 0.4), at(0.6, 0.5)])
    func pointsOnEdgesAndVerticesAreInsideAtDistanceZero(point: Coordinate) {
        #expect(Self.withHole.contains(point))
        #expect(Self.withHole.signedDistance(to: point) == 0)
    }

    @Test func aDiagonalEdgeIsOnTheBoundaryToo() throws {
        let triangle = try PolygonRegion(polygons: [[ring([(0, 0), (2, 0), (0, 2), (0, 0)])]])
        #expect(triangle.contains(at(1, 1)))        // on the hypotenuse, exactly representable
        #expect(triangle.contains(at(0.5, 0.5)))
        #expect(!triangle.contains(at(1.25, 1)))
    }

    @Test func aMultiPolygonContainsThePointsOfEachPart() throws {
        let multi = try PolygonRegion(polygons: [[square(lon: 0 ... 1, lat: 0 ... 1)], [square(lon: 10 ... 11, lat: 5 ... 6)]])
        #expect(multi.polygonCount == 2)
        #expect(multi.contains(at(0.5, 0.5)))
        #expect(multi.contains(at(5.5, 10.5)))
        #expect(!multi.contains(at(3, 5)))
        #expect(multi.boundingBox == GeoBox(minLatitude: 0, maxLatitude: 6, minLongitude: 0, maxLongitude: 11))
        // Distance from between the parts goes to the nearer one: 0.5° of longitude at the equator from part one.
        #expect(abs(multi.signedDistance(to: at(0.5, 1.5)) - Geodesic.distance(from: at(0.5, 1.5), to: at(0.5, 1))) < 0.01)
    }

    @Test func aPolygonAcrossTheAntimeridianIsUnwrapped() throws {
        // Written as GeoJSON tools often write it: longitudes jump from 179 to -179.
        let p = try PolygonRegion(polygons: [[ring([(179, -1), (-179, -1), (-179, 1), (179, 1), (179, -1)])]])
        #expect(p.contains(at(0, 179.5)))
        #expect(p.contains(at(0, -179.5)))
        #expect(p.contains(at(0, 180)))
        #expect(p.contains(at(0, -180)))
        #expect(!p.contains(at(0, 0)))
        #expect(!p.contains(at(0, 178.9)))
        #expect(!p.contains(at(0, -178.9)))
        #expect(p.boundingBox == GeoBox(minLatitude: -1, maxLatitude: 1, minLongitude: 179, maxLongitude: -179))
        // The nearest edge of (0, -179.5) is the meridian -179, half a degree east.
        let d = p.signedDistance(to: at(0, -179.5))
        #expect(abs(d + Geodesic.distance(from: at(0, -179.5), to: at(0, -179))) < 0.01)
        let outside = p.signedDistance(to: at(0, 178.5))
        #expect(abs(outside - Geodesic.distance(from: at(0, 178.5), to: at(0, 179))) < 0.01)
    }

    @Test func aMultiPolygonOnBothSidesOfTheAntimeridianHasOneCrossingBox() throws {
        let multi = try PolygonRegion(polygons: [[square(lon: 178 ... 179, lat: 0 ... 1)], [square(lon: -179 ... -178, lat: 0 ... 1)]])
        #expect(multi.boundingBox == GeoBox(minLatitude: 0, maxLatitude: 1, minLongitude: 178, maxLongitude: -178))
    }

    @Test func theSignIsNegativeInsidePositiveOutsideAndInTheHole() {
        let p = Self.withHole
        #expect(p.signedDistance(to: at(0.2, 0.2)) < 0)
        #expect(p.signedDistance(to: at(0.5, 0.5)) > 0)   // hole centre: 0.1° from the hole's edges
        #expect(p.signedDistance(to: at(2, 2)) > 0)
        // In the hole, the nearest boundary is a hole edge 0.1° of latitude away (a degree of
        // latitude is shorter than one of longitude at the equator).
        let hole = p.signedDistance(to: at(0.5, 0.5))
        #expect(abs(hole - Geodesic.distance(from: at(0.5, 0.5), to: at(0.6, 0.5))) < 0.01)
    }

    @Test func theSignedDistanceShapeAgreesWithContainsThroughRegionShape() throws {
        let shape = RegionShape.polygons(Self.withHole)
        for lat in stride(from: -0.5, through: 1.5, by: 0.07) {
            for lon in stride(from: -0.5, through: 1.5, by: 0.07) {
                let c = at(lat, lon)
                #expect(shape.contains(c) == (shape.signedDistance(to: c) <= 0), "\(c)")
                #expect(shape.boundingBox.contains(c) || !shape.contains(c))
            }
        }
    }
}

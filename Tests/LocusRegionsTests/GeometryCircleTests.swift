import LocusCore
import LocusRegions
import Testing

@Suite struct GeometryCircleTests {
    @Test(arguments: [at(48.8566, 2.3522), at(-33.9, 18.4), at(89.9, 45), at(0, 179.99), at(-85, -179.5)])
    func containmentAndSignedDistanceFollowTheGeodesic(center: Coordinate) throws {
        let radius = 5_000.0
        let circle = try RegionShape.circle(center: center, radius: radius)
        for bearing in stride(from: 0.0, to: 360, by: 30) {
            let inside = Geodesic.destination(from: center, bearing: bearing, distance: radius - 0.001)
            let outside = Geodesic.destination(from: center, bearing: bearing, distance: radius + 0.001)
            #expect(circle.contains(inside), "bearing \(bearing)")
            #expect(!circle.contains(outside), "bearing \(bearing)")
            #expect(circle.signedDistance(to: inside) == Geodesic.distance(from: center, to: inside) - radius)
            #expect(abs(circle.signedDistance(to: inside) + 0.001) < 1e-6)
            #expect(abs(circle.signedDistance(to: outside) - 0.001) < 1e-6)
        }
        #expect(abs(circle.signedDistance(to: center) + radius) < 1e-9)
    }

    @Test(arguments: [(at(0, 0), 10_000.0), (at(60, 10), 50_000), (at(80, 0), 200_000), (at(-70, 179.9), 30_000),
                      (at(84.5, -179.99), 40_000), (at(30, -179.5), 100_000)] as [(Coordinate, Double)])
    func theBoundingBoxContainsEveryPointOfTheCircle(center: Coordinate, radius: Double) throws {
        let circle = try CircleRegion(center: center, radius: radius)
        for bearing in stride(from: 0.0, to: 360, by: 0.5) {
            let edge = Geodesic.destination(from: center, bearing: bearing, distance: radius)
            #expect(circle.boundingBox.contains(edge), "bearing \(bearing): \(edge) not in \(circle.boundingBox)")
        }
        // Not grossly larger: the box's latitude span is the circle's diameter.
        let span = (circle.boundingBox.maxLatitude - circle.boundingBox.minLatitude) * 111_000
        #expect(span < 2.02 * radius)
    }

    @Test func aCircleContainingTheNorthPoleCoversAllLongitudes() throws {
        let circle = try CircleRegion(center: at(89.9, 10), radius: 20_000)
        #expect(circle.boundingBox.maxLatitude == 90)
        #expect(circle.boundingBox.minLongitude == -180 && circle.boundingBox.maxLongitude == 180)
        #expect(circle.contains(at(90, 0)))
        #expect(circle.contains(at(89.95, -170)))  // across the pole, about 17 km from the centre
        #expect(!circle.contains(at(89.7, -170)))
    }

    @Test func aCircleAcrossTheAntimeridianHasACrossingBoxAndContainsBothSides() throws {
        let circle = try CircleRegion(center: at(10, 179.99), radius: 5_000)
        #expect(circle.boundingBox.crossesAntimeridian)
        #expect(circle.contains(at(10, -179.99)))   // ~2.2 km east, across the antimeridian
        #expect(circle.contains(at(10, 180.01)))     // the same point, longitude outside [-180, 180)
        #expect(!circle.contains(at(10, -179.9)))   // ~11 km east
        #expect(abs(circle.signedDistance(to: at(10, -179.99)) - (Geodesic.distance(from: at(10, 179.99), to: at(10, -179.99)) - 5_000)) < 1e-9)
    }

    /// `contains` skips the Karney inverse away from the boundary; its answers must still be
    /// exactly those of the geodesic, including just inside and outside the skip margin.
    @Test(arguments: [(at(0, 0), 100_000.0), (at(45, 7), 50), (at(69.9, -30), 100_000), (at(-65, 179.95), 20_000),
                      (at(75, 0), 100_000), (at(30, 0), 300_000)] as [(Coordinate, Double)])
    func containsAgreesWithTheExactGeodesicEverywhere(center: Coordinate, radius: Double) throws {
        let circle = try CircleRegion(center: center, radius: radius)
        var disagreements = 0
        for bearing in stride(from: 0.0, to: 360, by: 7.5) {
            for fraction in [0.0, 0.3, 0.9, 0.998, 0.9989, 0.99899, 0.99999, 1.00001, 1.00101, 1.0011, 1.002, 1.1, 1.9] {
                let p = Geodesic.destination(from: center, bearing: bearing, distance: radius * fraction)
                if circle.contains(p) != (Geodesic.distance(from: center, to: p) <= radius) { disagreements += 1 }
            }
        }
        #expect(disagreements == 0)
    }

    @Test(arguments: [0.0, -1, .nan, .infinity, 20_000_000])
    func aCircleNeedsAPositiveRadius(radius: Double) {
        #expect { try CircleRegion(center: at(0, 0), radius: radius) } throws: {
            ($0 as? RegionGeometryError)?.code == .invalidCircle
        }
    }
}

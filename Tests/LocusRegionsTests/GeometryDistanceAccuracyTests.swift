import LocusCore
import LocusRegions
import Testing

/// The polygon signed distance (local projection, then Karney) against a reference: ternary
/// search for the nearest point of the lon/lat-straight edge with Karney's distance.
@Suite struct GeometryDistanceAccuracyTests {
    struct Case: Sendable, CustomStringConvertible {
        var latitude: Double
        var distance: Double
        var tolerance: Double
        var description: String { "lat \(latitude), \(distance) m" }
    }

    // Tolerances are a few times the errors measured (on this triangle, 3 bearings): 1e-9 m at
    // 100 m, 1e-6 m at 1 km, 0.8 mm at 10 km and 2 cm at 30 km at mid latitudes; at 78°,
    // 3e-5 m at 1 km, 3 cm at 10 km and 0.7 m at 30 km.
    @Test(arguments: [Case(latitude: 0, distance: 100, tolerance: 1e-6), Case(latitude: 46, distance: 1_000, tolerance: 1e-5),
                      Case(latitude: 60, distance: 1_000, tolerance: 1e-5), Case(latitude: 60, distance: 10_000, tolerance: 0.002),
                      Case(latitude: -45, distance: 30_000, tolerance: 0.05), Case(latitude: 78, distance: 5_000, tolerance: 0.02),
                      Case(latitude: 78, distance: 30_000, tolerance: 1.5)])
    func distanceToADiagonalEdgeMatchesTheGeodesicReference(c: Case) throws {
        // A triangle whose long diagonal edge runs SW → NE through (latitude, 14).
        let a = at(c.latitude - 0.3, 13.5), b = at(c.latitude + 0.3, 14.5)
        let p = try PolygonRegion(polygons: [[[a, b, at(c.latitude + 0.3, 13.5), a]]])
        // Query points off the edge's midpoint, on the side away from the triangle (south-east) and inside.
        for bearing in [135.0, 160, 110] {
            let mid = at(c.latitude, 14)
            let outside = Geodesic.destination(from: mid, bearing: bearing, distance: c.distance)
            let truth = referenceDistance(from: outside, toSegment: a, b)
            let got = p.signedDistance(to: outside)
            #expect(got > 0)
            #expect(abs(got - truth) <= c.tolerance, "outside \(bearing): \(got) vs \(truth)")
            #expect(got >= truth - 1e-6, "never below the true distance")
        }
        let inside = Geodesic.destination(from: at(c.latitude, 14), bearing: 315, distance: min(c.distance, 2_000))
        let truth = referenceDistance(from: inside, toSegment: a, b)
        let got = p.signedDistance(to: inside)
        #expect(got < 0)
        #expect(abs(-got - truth) <= c.tolerance, "inside: \(got) vs \(truth)")
    }
}

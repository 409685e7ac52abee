import Foundation
import Testing
@testable import LocusCore

/// Properties that must hold for any pair of points: round trips, symmetry, and the special
/// places (poles, equator, antimeridian, coincident and nearly antipodal points).
@Suite struct GeodesyPropertyTests {
    /// Deterministic points spread uniformly over the ellipsoid (SplitMix64), so a failure
    /// reproduces. Latitudes stay off the exact poles, where the bearing is a convention.
    static func samplePoints(count: Int, seed: UInt64) -> [Coordinate] {
        var state = seed
        func next() -> Double {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
        }
        return (0..<count).map { _ in
            Coordinate(latitude: asin(2 * next() - 1) * 180 / .pi, longitude: 360 * next() - 180)
        }
    }

    static let points = samplePoints(count: 400, seed: 2024)

    @Test func inverseThenDirectReturnsToTheEndPoint() {
        for (start, end) in zip(Self.points, Self.points.dropFirst()) {
            let inverse = Geodesic.inverse(from: start, to: end)
            let (arrival, finalBearing) = Geodesic.direct(from: start, bearing: inverse.initialBearing,
                                                          distance: inverse.distance)
            #expect(Geodesic.distance(from: arrival, to: end) < 1e-6, "\(start) → \(end) arrived at \(arrival)")
            #expect(GeodesyTolerance.angleError(finalBearing, inverse.finalBearing) < 1e-9)
        }
    }

    @Test func directThenInverseRecoversBearingAndDistance() {
        for (index, start) in Self.points.enumerated() {
            let bearing = Double(index * 37 % 360) + 0.25
            // Up to 15 000 km: comfortably short of the antipodal region, where a geodesic
            // can stop being the shortest path and the inverse rightly finds another.
            let distance = 1 + Double(index) / Double(Self.points.count) * 15e6
            let (end, finalBearing) = Geodesic.direct(from: start, bearing: bearing, distance: distance)
            let inverse = Geodesic.inverse(from: start, to: end)
            // Storing the end point in degrees rounds it by up to ~1e-9 m, which on a short
            // line turns the bearing by up to 1e-9 m / distance radians.
            let bearingTolerance = 1e-9 + 1e-8 / distance * 180 / .pi
            #expect(abs(inverse.distance - distance) < 1e-6, "\(start) \(bearing)° \(distance) m")
            #expect(GeodesyTolerance.angleError(inverse.initialBearing, bearing) < bearingTolerance)
            #expect(GeodesyTolerance.angleError(inverse.finalBearing, finalBearing) < bearingTolerance)
        }
    }

    @Test func reversedPathHasSameLengthAndOppositeBearings() {
        for (a, b) in zip(Self.points, Self.points.reversed()) {
            let forward = Geodesic.inverse(from: a, to: b)
            let backward = Geodesic.inverse(from: b, to: a)
            #expect(abs(forward.distance - backward.distance) < 1e-8)
            #expect(GeodesyTolerance.angleError(backward.initialBearing, forward.finalBearing + 180) < 1e-9)
            #expect(GeodesyTolerance.angleError(backward.finalBearing, forward.initialBearing + 180) < 1e-9)
        }
    }

    @Test func negativeDistanceTravelsBackwards() {
        for (index, start) in Self.points.prefix(50).enumerated() {
            let bearing = Double(index) * 7.3
            let back = Geodesic.direct(from: start, bearing: bearing, distance: -2_500_000)
            let turned = Geodesic.direct(from: start, bearing: bearing + 180, distance: 2_500_000)
            #expect(Geodesic.distance(from: back.destination, to: turned.destination) < 1e-6)
            #expect(GeodesyTolerance.angleError(back.finalBearing, turned.finalBearing + 180) < 1e-9)
        }
    }

    @Test func bearingsAreInZeroTo360() {
        var bearings: [Double] = []
        for (a, b) in zip(Self.points, Self.points.dropFirst(3)) {
            let inverse = Geodesic.inverse(from: a, to: b)
            bearings += [inverse.initialBearing, inverse.finalBearing]
        }
        // Exact due-north and due-south paths, and a hair either side of north.
        let origin = Coordinate(latitude: 0, longitude: 0)
        for end in [Coordinate(latitude: 10, longitude: 0), Coordinate(latitude: -10, longitude: 0),
                    Coordinate(latitude: 10, longitude: -1e-13), Coordinate(latitude: 10, longitude: 1e-13)] {
            let inverse = Geodesic.inverse(from: origin, to: end)
            bearings += [inverse.initialBearing, inverse.finalBearing]
        }
        bearings.append(Geodesic.direct(from: origin, bearing: -1e-17, distance: 1000).finalBearing)
        bearings.append(Geodesic.direct(from: origin, bearing: 720, distance: 1000).finalBearing)
        for bearing in bearings {
            #expect(bearing >= 0 && bearing < 360, "bearing \(bearing)")
            #expect(bearing.sign == .plus, "negative zero")
        }
        // A hair west of north is just under 360, not a negative angle.
        #expect(Geodesic.inverse(from: origin, to: Coordinate(latitude: 10, longitude: -1e-9)).initialBearing > 359.999)
    }

    // MARK: Special places

    /// The WGS-84 quarter meridian, 10 001 965.729 m (e.g. Karney's and NGA's tabulations).
    @Test func equatorToPoleIsAQuarterMeridian() {
        let quarter = Geodesic.distance(from: Coordinate(latitude: 0, longitude: 33), to: Coordinate(latitude: 90, longitude: 33))
        #expect(abs(quarter - 10_001_965.729) < 0.5e-3)
        let poleToPole = Geodesic.inverse(from: Coordinate(latitude: 90, longitude: 0), to: Coordinate(latitude: -90, longitude: 0))
        #expect(abs(poleToPole.distance - 2 * quarter) < 1e-6)
        #expect(poleToPole.initialBearing == 180 && poleToPole.finalBearing == 180)
    }

    @Test func fromAPoleTheBearingFollowsTheGivenMeridian() {
        let pole = Coordinate(latitude: 90, longitude: 0)
        // Leaving the north pole every path heads south; "south along 0°" is bearing 180 and
        // reaching longitude 90° east means turning 90° from that meridian.
        let inverse = Geodesic.inverse(from: pole, to: Coordinate(latitude: 60, longitude: 90))
        #expect(GeodesyTolerance.angleError(inverse.initialBearing, 90) < 1e-12)
        #expect(GeodesyTolerance.angleError(inverse.finalBearing, 180) < 1e-12)
        #expect(abs(inverse.distance - Geodesic.distance(from: Coordinate(latitude: 60, longitude: 0), to: pole)) < 1e-8)
        let arrival = Geodesic.destination(from: pole, bearing: 90, distance: inverse.distance)
        #expect(abs(arrival.latitude - 60) < 1e-12 && abs(arrival.longitude - 90) < 1e-12)
    }

    /// Along the equator a geodesic is the equator itself: length a·Δλ exactly.
    @Test func equatorialPathsFollowTheEquator() {
        let oneDegree = Geodesic.equatorialRadius * .pi / 180
        let east = Geodesic.inverse(from: Coordinate(latitude: 0, longitude: 10), to: Coordinate(latitude: 0, longitude: 11))
        #expect(abs(east.distance - oneDegree) < 1e-9)
        #expect(east.initialBearing == 90 && east.finalBearing == 90)
        let west = Geodesic.inverse(from: Coordinate(latitude: 0, longitude: 11), to: Coordinate(latitude: 0, longitude: 10))
        #expect(west.initialBearing == 270 && west.finalBearing == 270)
        let along = Geodesic.direct(from: Coordinate(latitude: 0, longitude: 10), bearing: 90, distance: 100 * oneDegree)
        #expect(along.destination.latitude == 0)
        #expect(abs(along.destination.longitude - 110) < 1e-12 && along.finalBearing == 90)
    }

    @Test(arguments: [0.0, 10, -45, 80])
    func crossingTheAntimeridianIsSeamless(latitude: Double) {
        let across = Geodesic.inverse(from: Coordinate(latitude: latitude, longitude: 179.9),
                                      to: Coordinate(latitude: latitude, longitude: -179.9))
        let around0 = Geodesic.inverse(from: Coordinate(latitude: latitude, longitude: -0.1),
                                       to: Coordinate(latitude: latitude, longitude: 0.1))
        // 179.9 and 0.1 are not exact in binary, so the two 0.2° spans differ by ~1e-14°.
        #expect(abs(across.distance - around0.distance) < 1e-6)
        #expect(across.distance < 25_000, "took the long way round: \(across.distance)")
        #expect(GeodesyTolerance.angleError(across.initialBearing, around0.initialBearing) < 1e-9)
        let unrolled = Geodesic.distance(from: Coordinate(latitude: latitude, longitude: 179.9),
                                         to: Coordinate(latitude: latitude, longitude: 180.1))
        #expect(abs(unrolled - across.distance) < 1e-6)
        let arrival = Geodesic.destination(from: Coordinate(latitude: latitude, longitude: 179.9),
                                           bearing: across.initialBearing, distance: across.distance)
        #expect(arrival.longitude >= -180 && arrival.longitude <= 180)
        #expect(GeodesyTolerance.angleError(arrival.longitude, -179.9) < 1e-9)
    }

    @Test(arguments: [Coordinate(latitude: 0, longitude: 0), Coordinate(latitude: 51.5, longitude: -0.12),
                      Coordinate(latitude: -33.9, longitude: 151.2), Coordinate(latitude: 90, longitude: 45),
                      Coordinate(latitude: -90, longitude: 0), Coordinate(latitude: 12, longitude: 180)])
    func coincidentPointsAreZeroApart(point: Coordinate) {
        let inverse = Geodesic.inverse(from: point, to: point)
        #expect(inverse.distance == 0 && inverse.distance.sign == .plus)
        #expect(inverse.initialBearing >= 0 && inverse.initialBearing < 360)
        #expect(inverse.finalBearing >= 0 && inverse.finalBearing < 360)
        let stay = Geodesic.direct(from: point, bearing: 123, distance: 0)
        #expect(abs(stay.destination.latitude - point.latitude) < 1e-12)
        if abs(point.latitude) < 90 {
            #expect(GeodesyTolerance.angleError(stay.destination.longitude, point.longitude) < 1e-12)
            #expect(GeodesyTolerance.angleError(stay.finalBearing, 123) < 1e-12)
        }
    }

    /// Near the antipode, Vincenty's iteration fails to converge; the inverse here must still
    /// give a path whose direct solution really reaches the target.
    @Test func nearlyAntipodalPointsConverge() {
        for (index, start) in Self.points.prefix(100).enumerated() {
            let offset = [0, 1e-9, 1e-5, 0.01, 0.3][index % 5]
            let end = Coordinate(latitude: min(90, -start.latitude + offset), longitude: start.longitude + 180 - offset / 2)
            let inverse = Geodesic.inverse(from: start, to: end)
            #expect(inverse.distance > 19_900_000 && inverse.distance < 20_004_000)
            let arrival = Geodesic.destination(from: start, bearing: inverse.initialBearing, distance: inverse.distance)
            #expect(Geodesic.distance(from: arrival, to: end) < 1e-5, "\(start) → \(end)")
        }
    }

    @Test func invalidInputGivesNaN() {
        let good = Coordinate(latitude: 10, longitude: 20)
        for bad in [Coordinate(latitude: 90.5, longitude: 0), Coordinate(latitude: .nan, longitude: 0),
                    Coordinate(latitude: 0, longitude: .nan), Coordinate(latitude: 0, longitude: .infinity)] {
            #expect(Geodesic.distance(from: good, to: bad).isNaN)
            #expect(Geodesic.distance(from: bad, to: good).isNaN)
            #expect(!bad.isValid)
        }
        #expect(Geodesic.destination(from: good, bearing: 10, distance: .infinity).latitude.isNaN)
        #expect(Geodesic.destination(from: good, bearing: .nan, distance: 10).latitude.isNaN)
        #expect(Geodesic.destination(from: Coordinate(latitude: -91, longitude: 0), bearing: 0, distance: 10).latitude.isNaN)
        #expect(good.isValid && Coordinate(latitude: -90, longitude: 540).isValid)
    }

    // MARK: Approximation and the Coordinate type

    @Test(arguments: [(0.0, 1_000.0, 1e-8), (45, 1_000, 1e-8), (-59, 1_000, 1e-8), (30, 10_000, 1e-6), (75, 10_000, 1e-5)])
    func approximateDistanceIsCloseForShortHops(latitude: Double, distance: Double, relativeTolerance: Double) {
        for bearing in stride(from: 0.0, to: 360, by: 22.5) {
            for longitude in [-179.995, 0, 100] {
                let start = Coordinate(latitude: latitude, longitude: longitude)
                let end = Geodesic.destination(from: start, bearing: bearing, distance: distance)
                let approximate = Geodesic.approximateDistance(from: start, to: end)
                #expect(abs(approximate - distance) <= relativeTolerance * distance,
                        "\(start) \(bearing)°: \(approximate) vs \(distance)")
            }
        }
    }

    @Test func approximateDistanceIsNotTheSphericalFormula() {
        // Due east at 45°: a sphere of mean radius is off by 0.17 % here; the ellipsoidal
        // radii of curvature are not.
        let start = Coordinate(latitude: 45, longitude: 7)
        let end = Geodesic.destination(from: start, bearing: 90, distance: 500)
        #expect(abs(Geodesic.approximateDistance(from: start, to: end) - 500) < 1e-5)
        #expect(abs(GeodesyTests.haversine(start, end) - 500) > 0.5)
    }

    @Test func coordinateRoundTripsThroughJSON() throws {
        let point = Coordinate(latitude: -33.856784, longitude: 151.215297)
        let data = try JSONEncoder().encode(point)
        #expect(try JSONDecoder().decode(Coordinate.self, from: data) == point)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"latitude\"") && text.contains("\"longitude\""))
        #expect(Set([point, point, Coordinate(latitude: 0, longitude: 0)]).count == 2)
    }
}

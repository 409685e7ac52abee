import Foundation
import Testing
@testable import LocusCore

/// One published geodesic: start, forward azimuth there, end, forward azimuth there, length.
/// Azimuths are degrees from north as published (some in (-180, 180]); lengths are metres.
struct GeodesicReference: Sendable, CustomTestStringConvertible {
    var name: String
    var lat1: Double, lon1: Double, azi1: Double
    var lat2: Double, lon2: Double, azi2: Double
    var s12: Double
    /// Half a unit in the last published digit (or tighter, for full-precision values).
    var distanceTolerance: Double = GeodesyTolerance.distance
    var angleTolerance: Double = GeodesyTolerance.angle

    var start: Coordinate { Coordinate(latitude: lat1, longitude: lon1) }
    var end: Coordinate { Coordinate(latitude: lat2, longitude: lon2) }
    var testDescription: String { name }
}

enum GeodesyTolerance {
    /// For references given to full double precision. Karney's method is good to about 15 nm;
    /// 1 µm leaves room for other libm implementations while staying 1000× inside the 1 mm
    /// accuracy promised by the API.
    static let distance = 1e-6
    /// Degrees; about 0.1 mm on the ground, against the promised 1e-6°.
    static let angle = 1e-9

    /// |a − b| for angles in degrees, modulo 360.
    static func angleError(_ a: Double, _ b: Double) -> Double {
        abs((a - b).remainder(dividingBy: 360))
    }
}

@Suite struct GeodesyTests {
    // MARK: Reference tables

    /// Lines of GeographicLib's GeodTest.dat, as carried in GeographicLib's own test suites
    /// (the `testcases` table of geodtest.c / test_geodesic.py / GeodesicTest.java), columns
    /// lat1 lon1 azi1 lat2 lon2 azi2 s12 (WGS-84, degrees and metres; lon2 may be unrolled
    /// past ±180). Full double precision.
    static let geodTest: [GeodesicReference] = [
        .init(name: "GeodTest: long, mid latitudes", lat1: 35.60777, lon1: -139.44815, azi1: 111.098748429560326,
              lat2: -11.17491, lon2: -69.95921, azi2: 129.289270889708762, s12: 8935244.5604818305),
        .init(name: "GeodTest: high latitude, across the antimeridian", lat1: 55.52454, lon1: 106.05087, azi1: 22.020059880982801,
              lat2: 77.03196, lon2: 197.18234, azi2: 109.112041110671519, s12: 4105086.1713924406),
        .init(name: "GeodTest: southern, nearly northward arrival", lat1: -66.99028, lon1: 112.2363, azi1: 173.73491240878403,
              lat2: -12.70631, lon2: 285.90344, azi2: 2.512956620913668, s12: 11150344.2312080241),
        .init(name: "GeodTest: 16 000 km via the south", lat1: -17.42761, lon1: 173.34268, azi1: -159.033557661192928,
              lat2: -15.84784, lon2: 5.93557, azi2: -20.787484651536988, s12: 16076603.1631180673),
        .init(name: "GeodTest: near-equatorial, 17 000 km", lat1: 6.96833, lon1: 52.74123, azi1: 92.581585386317712,
              lat2: -7.39675, lon2: 206.17291, azi2: 90.721692165923907, s12: 17102477.2496958388),
        .init(name: "GeodTest: from 2° off the south pole", lat1: -87.85331, lon1: 85.66836, azi1: -65.120313040242748,
              lat2: 66.48646, lon2: 16.09921, azi2: -4.888658719272296, s12: 17286615.3147144645),
        .init(name: "GeodTest: medium, near the antimeridian", lat1: -19.79938, lon1: -174.47484, azi1: 71.167275780171533,
              lat2: -11.99349, lon2: -154.35109, azi2: 65.589099775199228, s12: 2319004.8601169389),
        .init(name: "GeodTest: westward across the antimeridian", lat1: -25.72959, lon1: -144.90758, azi1: -153.647468693117198,
              lat2: -57.70581, lon2: -269.17879, azi2: -48.343983158876487, s12: 9413446.7452453107),
        .init(name: "GeodTest: eastward across the antimeridian", lat1: -21.76221, lon1: 166.90563, azi1: 29.319421206936428,
              lat2: 48.72884, lon2: 213.97627, azi2: 43.508671946410168, s12: 9098627.3986554915),
        .init(name: "GeodTest: short-ish, mostly northward", lat1: -41.22777, lon1: 122.32875, azi1: 14.285113402275739,
              lat2: -7.57291, lon2: 130.37946, azi2: 10.805303085187369, s12: 3812686.035106021),
    ]

    /// C. F. F. Karney, "Algorithms for geodesics", J. Geodesy 87, 43–55 (2013): the worked
    /// direct example (φ1 = 40°, α1 = 30°, s12 = 10 000 km) and inverse example
    /// (φ1 = −30°, φ2 = 29.9°, λ12 = 179.8°, nearly antipodal), as printed there.
    static let karney2013: [GeodesicReference] = [
        .init(name: "Karney 2013 direct example", lat1: 40, lon1: 0, azi1: 30,
              lat2: 41.79331020506, lon2: 137.84490004377, azi2: 149.09016931807, s12: 10_000_000,
              // Endpoints rounded to 0.5e-11° (0.6 µm each) shift the inverse distance by up to ~1 µm.
              distanceTolerance: 2e-6, angleTolerance: 0.5e-11 + 1e-12),
        .init(name: "Karney 2013 inverse example (nearly antipodal)", lat1: -30, lon1: 0, azi1: 161.890524736,
              lat2: 29.9, lon2: 179.8, azi2: 18.090737246, s12: 19989832.827610,
              distanceTolerance: 0.5e-6 + 1e-7, angleTolerance: 0.5e-9 + 1e-12),
    ]

    /// Cases from GeographicLib's GeodSolve regression tests (test_geodesic.py `GeodSolveTest`,
    /// numbered as there), with the precision published for each.
    static let geodSolveInverse: [GeodesicReference] = [
        .init(name: "GeodSolve0: JFK to Paris CDG", lat1: 40.6, lon1: -73.8, azi1: 53.47022,
              lat2: 49.01666667, lon2: 2.55, azi2: 111.59367, s12: 5853226,
              distanceTolerance: 0.5, angleTolerance: 0.5e-5),
        .init(name: "GeodSolve74: 40 m line", lat1: 54.1589, lon1: 15.3872, azi1: 55.723110355,
              lat2: 54.1591, lon2: 15.3877, azi2: 55.723515675, s12: 39.527686385,
              distanceTolerance: 5e-9, angleTolerance: 5e-9),
        .init(name: "GeodSolve92: 26 cm line", lat1: 37.757540000000006, lon1: -122.47018, azi1: 89.99999923,
              lat2: 37.75754, lon2: -122.470177, azi2: 90.00000106, s12: 0.264,
              distanceTolerance: 0.5e-3, angleTolerance: 1e-7),
        .init(name: "GeodSolve76: Wellington to Salamanca (Vincenty fails)", lat1: -(41 + 19 / 60.0), lon1: 174 + 49 / 60.0,
              azi1: 160.39137649664, lat2: 40 + 58 / 60.0, lon2: -(5 + 30 / 60.0), azi2: 19.50042925176,
              s12: 19960543.857179, distanceTolerance: 0.5e-6 + 1e-7, angleTolerance: 0.5e-11 + 1e-12),
        .init(name: "GeodSolve78: nearly antipodal (NGS calculator fails)", lat1: 27.2, lon1: 0, azi1: 45.82468716758,
              lat2: -27.1, lon2: 179.5, azi2: 134.22776532670, s12: 19974354.765767,
              distanceTolerance: 0.5e-6 + 1e-7, angleTolerance: 0.5e-11 + 1e-12),
        .init(name: "GeodSolve33: equatorial, 179°", lat1: 0, lon1: 0, azi1: 90,
              lat2: 0, lon2: 179, azi2: 90, s12: 19926189, distanceTolerance: 0.5, angleTolerance: 0.5e-5),
        .init(name: "GeodSolve33: equatorial points, path leaves the equator", lat1: 0, lon1: 0, azi1: 55.96650,
              lat2: 0, lon2: 179.5, azi2: 124.03350, s12: 19980862, distanceTolerance: 0.5, angleTolerance: 0.5e-5),
        .init(name: "GeodSolve33: exactly antipodal on the equator (via a pole)", lat1: 0, lon1: 0, azi1: 0,
              lat2: 0, lon2: 180, azi2: 180, s12: 20003931, distanceTolerance: 0.5, angleTolerance: 0.5e-5),
        .init(name: "GeodSolve33: antipodal meridian past the pole", lat1: 0, lon1: 0, azi1: 0,
              lat2: 1, lon2: 180, azi2: 180, s12: 19893357, distanceTolerance: 0.5, angleTolerance: 0.5e-5),
        .init(name: "GeodSolve59: over the north pole, longitudes 1e-14° off 180° apart", lat1: 5, lon1: 0.00000000000001,
              azi1: 0.000000000000035, lat2: 10, lon2: 180, azi2: 179.99999999999996, s12: 18345191.174332713),
        .init(name: "GeodSolve80: the north pole to itself", lat1: 90, lon1: 0, azi1: 0,
              lat2: 90, lon2: 180, azi2: 180, s12: 0),
        .init(name: "GeodSolve80: coincident points", lat1: 20.001, lon1: 0, azi1: 180,
              lat2: 20.001, lon2: 0, azi2: 180, s12: 0),
    ]

    /// Distance-only GeodSolve cases (GeodSolve4, 6, 9, 10, 11): a 7 cm line and nearly
    /// antipodal pairs that broke earlier implementations; published to 0.5 mm.
    static let geodSolveDistances: [GeodesicReference] = geodSolveDistanceRows.map { n, lat1, lon1, lat2, lon2, s12 in
        GeodesicReference(name: "GeodSolve\(n): \(lat1) \(lon1) → \(lat2) \(lon2)", lat1: lat1, lon1: lon1, azi1: .nan,
                          lat2: lat2, lon2: lon2, azi2: .nan, s12: s12, distanceTolerance: 0.5e-3)
    }

    private static let geodSolveDistanceRows: [(Int, Double, Double, Double, Double, Double)] = [
        (4, 36.493349428792, 0.0, 36.49334942879201, 0.0000008, 0.072),
        (6, 88.202499451857, 0, -88.202499451857, 179.981022032992859592, 20003898.214),
        (6, 89.262080389218, 0, -89.262080389218, 179.992207982775375662, 20003925.854),
        (6, 89.333123580033, 0, -89.333123580032997687, 179.99295812360148422, 20003926.881),
        (9, 56.320923501171, 0, -56.320923501171, 179.664747671772880215, 19993558.287),
        (10, 52.784459512564, 0, -52.784459512563990912, 179.634407464943777557, 19991596.095),
        (11, 48.522876735459, 0, -48.52287673545898293, 179.599720456223079643, 19989144.774),
    ]

    /// Direct-problem GeodSolve cases (GeodSolve1, 5, 61, 73), published to 0.5e-5°.
    static let geodSolveDirect: [GeodesicReference] = [
        .init(name: "GeodSolve1: JFK 5850 km towards Paris", lat1: 40.63972222, lon1: -73.77888889, azi1: 53.5,
              lat2: 49.01467, lon2: 2.56106, azi2: 111.62947, s12: 5850e3, angleTolerance: 0.5e-5),
        .init(name: "GeodSolve5: due north, ending exactly at the pole", lat1: 0.01777745589997, lon1: 30, azi1: 0,
              lat2: 90, lon2: -150, azi2: 180, s12: 10e6, angleTolerance: 0.5e-5),
        .init(name: "GeodSolve61: a hair west of north, over the pole", lat1: 45, lon1: 0, azi1: -0.000000000000000003,
              lat2: 45.30632, lon2: -180, azi2: 180, s12: 1e7, angleTolerance: 0.5e-5),
        .init(name: "GeodSolve73: backwards from the north pole", lat1: 90, lon1: 10, azi1: 180,
              lat2: 81.04623, lon2: -170, azi2: 0, s12: -1e6, angleTolerance: 0.5e-5),
    ]

    /// Flinders Peak → Buninyong, the worked example of Vincenty's formulae in Geoscience
    /// Australia's Geodetic Datum of Australia Technical Manual: 54 972.271 m, azimuth
    /// 306°52′05.37″, reverse azimuth 127°10′25.07″. Published on GRS80, whose flattening
    /// differs from WGS-84's by 1.6e-11, moving this line by under 1 µm.
    static let flindersPeak = GeodesicReference(
        name: "Flinders Peak to Buninyong",
        lat1: -dms(37, 57, 3.72030), lon1: dms(144, 25, 29.52440), azi1: dms(306, 52, 5.37),
        lat2: -dms(37, 39, 10.15610), lon2: dms(143, 55, 35.38390), azi2: dms(127, 10, 25.07) - 180,
        s12: 54972.271, distanceTolerance: 0.5e-3, angleTolerance: dms(0, 0, 0.005) + 1e-9)

    static func dms(_ d: Double, _ m: Double, _ s: Double) -> Double { d + m / 60 + s / 3600 }

    static let inverseReferences = geodTest + karney2013 + geodSolveInverse + geodSolveDistances + [flindersPeak]
    static let directReferences = geodTest + karney2013 + geodSolveDirect + [flindersPeak]

    // MARK: Inverse and direct against the tables

    @Test(arguments: inverseReferences)
    func inverseMatchesPublishedValues(_ ref: GeodesicReference) {
        let result = Geodesic.inverse(from: ref.start, to: ref.end)
        #expect(abs(result.distance - ref.s12) <= ref.distanceTolerance, "distance \(result.distance) vs \(ref.s12)")
        #expect(Geodesic.distance(from: ref.start, to: ref.end) == result.distance)
        if !ref.azi1.isNaN {
            #expect(GeodesyTolerance.angleError(result.initialBearing, ref.azi1) <= ref.angleTolerance,
                    "initial bearing \(result.initialBearing) vs \(ref.azi1)")
            #expect(GeodesyTolerance.angleError(result.finalBearing, ref.azi2) <= ref.angleTolerance,
                    "final bearing \(result.finalBearing) vs \(ref.azi2)")
        }
    }

    @Test(arguments: directReferences)
    func directMatchesPublishedValues(_ ref: GeodesicReference) {
        let (destination, finalBearing) = Geodesic.direct(from: ref.start, bearing: ref.azi1, distance: ref.s12)
        #expect(abs(destination.latitude - ref.lat2) <= ref.angleTolerance, "latitude \(destination.latitude) vs \(ref.lat2)")
        // Arriving exactly at a pole, "longitude λ heading north" and "longitude λ + 180
        // heading south" describe the same arrival; round-off may pick either.
        let flip = abs(ref.lat2) == 90 && GeodesyTolerance.angleError(destination.longitude, ref.lon2) > 90 ? 180.0 : 0
        #expect(GeodesyTolerance.angleError(destination.longitude, ref.lon2 + flip) <= ref.angleTolerance,
                "longitude \(destination.longitude) vs \(ref.lon2)")
        #expect(GeodesyTolerance.angleError(finalBearing, ref.azi2 + flip) <= ref.angleTolerance,
                "final bearing \(finalBearing) vs \(ref.azi2)")
        #expect(Geodesic.destination(from: ref.start, bearing: ref.azi1, distance: ref.s12) == destination)
    }

    // MARK: The tolerances have teeth

    /// A spherical model (haversine, mean radius 6 371 008.8 m) is off by up to ~0.5 %, which
    /// these tests must reject: for every long reference line it misses by kilometres, and
    /// even a uniform 0.5 % scale error in our own result would fail.
    @Test(arguments: geodTest + karney2013)
    func sphericalErrorsWouldFail(_ ref: GeodesicReference) {
        let haversine = Self.haversine(ref.start, ref.end)
        #expect(abs(haversine - ref.s12) > 1000 * ref.distanceTolerance)
        #expect(abs(haversine - ref.s12) > 1_000, "haversine \(haversine) vs \(ref.s12)")
        let distance = Geodesic.distance(from: ref.start, to: ref.end)
        #expect(abs(distance * 1.005 - ref.s12) > ref.distanceTolerance)
        #expect(abs(distance * (1 + 1e-9) - ref.s12) > ref.distanceTolerance, "1e-9 relative is already visible")
    }

    @Test func sphericalErrorsFailEvenOnShortLines() {
        for ref in [Self.flindersPeak, Self.geodSolveInverse[1]] {
            let haversine = Self.haversine(ref.start, ref.end)
            #expect(abs(haversine - ref.s12) > 10 * ref.distanceTolerance, "\(ref.name): haversine \(haversine)")
        }
    }

    static func haversine(_ p: Coordinate, _ q: Coordinate) -> Double {
        let r = 6_371_008.8, rad = Double.pi / 180
        let dLat = (q.latitude - p.latitude) * rad, dLon = (q.longitude - p.longitude) * rad
        let h = pow(sin(dLat / 2), 2) + cos(p.latitude * rad) * cos(q.latitude * rad) * pow(sin(dLon / 2), 2)
        return 2 * r * asin(min(1, h.squareRoot()))
    }
}

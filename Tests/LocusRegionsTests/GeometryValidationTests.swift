import LocusCore
import LocusRegions
import Testing

@Suite struct GeometryValidationTests {
    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var polygon: [[Coordinate]]
        var code: RegionGeometryError.Code
        var reason: String
        var description: String { name }
    }

    static let outer = square(lon: 0 ... 1, lat: 0 ... 1)

    static let cases: [Case] = [
        Case(name: "three positions", polygon: [ring([(0, 0), (1, 0), (0, 0)])], code: .tooFewPositions,
             reason: "ring 0 has 3 positions; a ring needs at least 4 (a closed triangle)"),
        Case(name: "unclosed", polygon: [ring([(0, 0), (1, 0), (1, 1), (0, 1)])], code: .ringNotClosed,
             reason: "ring 0 is not closed: its first position must equal its last"),
        Case(name: "bow tie", polygon: [ring([(0, 0), (1, 1), (1, 0), (0, 1), (0, 0)])], code: .selfIntersection,
             reason: "ring 0 is self-intersecting: edges 0 and 2 cross or touch"),
        // Vertex 3 lies on edge 0, so edges 2 and 3 both touch it; the sweep meets edge 3 first.
        Case(name: "touching itself at a vertex", polygon: [ring([(0, 0), (2, 0), (2, 2), (1, 0), (0, 2), (0, 0)])],
             code: .selfIntersection, reason: "ring 0 is self-intersecting: edges 0 and 3 cross or touch"),
        Case(name: "spike", polygon: [ring([(0, 0), (2, 0), (1, 0), (1, 1), (0, 0)])], code: .selfIntersection,
             reason: "ring 0 edges 0 and 1 overlap (the ring doubles back on itself)"),
        Case(name: "hole outside", polygon: [outer, square(lon: 2 ... 3, lat: 0 ... 1)], code: .holeOutsideOuterRing,
             reason: "ring 1 (a hole) lies outside the outer ring"),
        Case(name: "hole across the outer ring", polygon: [outer, square(lon: 0.5 ... 1.5, lat: 0.2 ... 0.8)],
             code: .holeIntersectsOuterRing, reason: "ring 1 (a hole) crosses or touches the outer ring"),
        Case(name: "overlapping holes", polygon: [outer, square(lon: 0.1 ... 0.5, lat: 0.1 ... 0.5), square(lon: 0.4 ... 0.8, lat: 0.4 ... 0.8)],
             code: .holesIntersect, reason: "holes ring 1 and ring 2 cross or touch"),
        Case(name: "latitude 91", polygon: [ring([(0, 0), (1, 0), (1, 91), (0, 0)])], code: .invalidPosition,
             reason: "ring 0 position 2: latitude 91.0, longitude 1.0 is not a valid position (latitude must be in [-90, 90])"),
        Case(name: "near the pole", polygon: [ring([(0, 80), (10, 80), (10, 86), (0, 80)])], code: .tooCloseToPole,
             reason: "ring 0 position 2: latitude 86.0 is beyond ±85.0°, too close to a pole for lon/lat polygons; use a circle there"),
        Case(name: "around the pole", polygon: [ring([(0, 80), (90, 80), (180, 80), (-90, 80), (0, 80)])], code: .enclosesPole,
             reason: "ring 0 winds around a pole (its longitudes go once round the globe); polygons containing a pole are not supported, use a circle"),
    ]

    @Test(arguments: cases)
    func invalidPolygonsAreRejectedWithTheReason(c: Case) {
        #expect { try PolygonRegion(polygons: [c.polygon]) } throws: { error in
            guard let error = error as? RegionGeometryError else { return false }
            #expect(error.code == c.code)
            #expect(error.description == c.reason)
            return error.code == c.code
        }
    }

    @Test func aMultiPolygonNamesThePolygon() {
        #expect { try PolygonRegion(polygons: [[Self.outer], [ring([(5, 5), (6, 5), (6, 6), (5, 6)])]]) } throws: {
            ($0 as? RegionGeometryError)?.description == "polygon 1 ring 0 is not closed: its first position must equal its last"
        }
    }

    @Test func repeatedConsecutivePositionsAreDropped() throws {
        let p = try PolygonRegion(polygons: [[ring([(0, 0), (1, 0), (1, 0), (1, 1), (0, 1), (0, 1), (0, 0)])]])
        #expect(p.contains(at(0.5, 0.5)))
        #expect(p.contains(at(0, 1)))
        #expect { try PolygonRegion(polygons: [[ring([(0, 0), (1, 0), (1, 0), (0, 0)])]]) } throws: {
            ($0 as? RegionGeometryError)?.code == .tooFewPositions
        }
    }

    @Test func eitherWindingOrderAndAHoleInsideAreAccepted() throws {
        let clockwise = ring([(0, 0), (0, 1), (1, 1), (1, 0), (0, 0)])
        let p = try PolygonRegion(polygons: [[clockwise, square(lon: 0.2 ... 0.4, lat: 0.2 ... 0.4)]])
        #expect(p.contains(at(0.8, 0.8)))
        #expect(!p.contains(at(0.3, 0.3)))
    }
}

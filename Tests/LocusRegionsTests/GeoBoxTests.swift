import LocusCore
import LocusRegions
import Testing

@Suite struct GeoBoxTests {
    @Test func aBoxAcrossTheAntimeridianContainsBothSidesAndSplitsInTwo() {
        let box = GeoBox(minLatitude: -10, maxLatitude: 10, minLongitude: 179, maxLongitude: -179)
        #expect(box.crossesAntimeridian)
        #expect(box.contains(Coordinate(latitude: 0, longitude: 179.5)))
        #expect(box.contains(Coordinate(latitude: 0, longitude: -179.5)))
        #expect(!box.contains(Coordinate(latitude: 0, longitude: 0)))
        #expect(!box.contains(Coordinate(latitude: 11, longitude: 179.5)))
        let parts = box.splitAtAntimeridian()
        #expect(parts.count == 2 && parts.allSatisfy { !$0.crossesAntimeridian })
        #expect(parts.contains { $0.contains(Coordinate(latitude: 0, longitude: 179.5)) })
        #expect(parts.contains { $0.contains(Coordinate(latitude: 0, longitude: -179.5)) })
    }

    @Test func anOrdinaryBoxIsItself() {
        let box = GeoBox(minLatitude: 52.3, maxLatitude: 52.7, minLongitude: 13.1, maxLongitude: 13.7)
        #expect(box.splitAtAntimeridian() == [box])
        #expect(box.contains(Coordinate(latitude: 52.52, longitude: 13.405)))
        #expect(!box.contains(Coordinate(latitude: 52.52, longitude: 13.8)))
    }
}

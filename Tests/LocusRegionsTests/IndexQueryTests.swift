import LocusCore
import LocusRegions
import Testing

@Suite struct IndexQueryTests {
    /// Cell sizes 1° (all three levels used: fine, coarse 32°, scanned list) and the default.
    @Test(arguments: [(UInt64(1), 1.0), (2, 0.004), (3, 7.5)])
    func queriesEqualABruteForceScan(seed: UInt64, cellDegrees: Double) {
        var random = IndexTestRandom(seed: seed)
        let index = RegionIndex<Int>(cellDegrees: cellDegrees)
        var boxes: [Int: GeoBox] = [:]
        for id in 0..<600 {
            let box = random.box()
            boxes[id] = box
            index.insert(id, box)
        }
        let list = Array(boxes.values)
        for _ in 0..<4000 {
            let p = random.point(near: list)
            let found = index.candidates(p)
            let expected = bruteForce(boxes, p)
            #expect(found == expected, "seed \(seed) point \(p)")
            if found != expected { return }
        }
    }

    @Test func aBoxAcrossTheAntimeridianIsFoundOnBothSidesAndOnce() {
        let index = RegionIndex<String>()
        index.insert("fiji", GeoBox(minLatitude: -18, maxLatitude: -16, minLongitude: 179.9, maxLongitude: -179.9))
        #expect(index.candidates(Coordinate(latitude: -17, longitude: 179.95)) == ["fiji"])
        #expect(index.candidates(Coordinate(latitude: -17, longitude: -179.95)) == ["fiji"])
        #expect(index.candidates(Coordinate(latitude: -17, longitude: -180)) == ["fiji"])
        #expect(index.candidates(Coordinate(latitude: -17, longitude: 180.05)) == ["fiji"])  // reduced to -179.95
        #expect(index.candidates(Coordinate(latitude: -17, longitude: 179.8)) == [])
    }

    @Test func polarCapsAreFoundAtThePoleAndAtAnyLongitude() {
        let index = RegionIndex<String>()
        index.insert("arctic", GeoBox(minLatitude: 89.5, maxLatitude: 90, minLongitude: -180, maxLongitude: 180))
        index.insert("station", GeoBox(minLatitude: 89.99, maxLatitude: 90, minLongitude: 10, maxLongitude: 10.5))
        #expect(index.candidates(Coordinate(latitude: 90, longitude: 0)) == ["arctic"])
        #expect(index.candidates(Coordinate(latitude: 89.995, longitude: 10.2)) == ["arctic", "station"])
        #expect(index.candidates(Coordinate(latitude: 89.7, longitude: -120)) == ["arctic"])
        #expect(index.candidates(Coordinate(latitude: 89.4, longitude: -120)) == [])
    }

    @Test func invalidPointsAreInNoBox() {
        let index = RegionIndex<Int>()
        index.insert(1, GeoBox(minLatitude: -90, maxLatitude: 90, minLongitude: -180, maxLongitude: 180))
        #expect(index.candidates(Coordinate(latitude: .nan, longitude: 0)) == [])
        #expect(index.candidates(Coordinate(latitude: 0, longitude: .infinity)) == [])
        #expect(index.candidates(Coordinate(latitude: 91, longitude: 0)) == [])
        #expect(index.candidates(Coordinate(latitude: 0, longitude: 0)) == [1])
    }
}

import LocusCore
import LocusRegions
import Testing

@Suite struct IndexMutationTests {
    /// Random inserts, removes, updates and re-inserts of freed ids, checked against a
    /// dictionary after every step batch: handles and buckets are recycled correctly.
    @Test(arguments: [UInt64(11), 12])
    func mutationsKeepQueriesEqualToABruteForceScan(seed: UInt64) {
        var random = IndexTestRandom(seed: seed)
        let index = RegionIndex<Int>(cellDegrees: 1)
        var boxes: [Int: GeoBox] = [:]
        for round in 0..<40 {
            for _ in 0..<50 {
                let id = Int.random(in: 0..<300, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0:
                    let box = random.box()
                    #expect(index.insert(id, box) == (boxes[id] == nil))
                    boxes[id] = box
                case 1:
                    #expect(index.remove(id) == (boxes.removeValue(forKey: id) != nil))
                default:
                    let box = random.box()
                    #expect(index.update(id, box) == (boxes[id] != nil))
                    if boxes[id] != nil { boxes[id] = box }
                }
            }
            #expect(index.count == boxes.count)
            let list = Array(boxes.values)
            for _ in 0..<200 {
                let p = random.point(near: list)
                let found = index.candidates(p), expected = bruteForce(boxes, p)
                #expect(found == expected, "seed \(seed) round \(round) point \(p)")
                if found != expected { return }  // one counterexample is enough to read
            }
        }
        for id in boxes.keys { index.remove(id) }
        #expect(index.count == 0)
        #expect(index.candidates(Coordinate(latitude: 0, longitude: 0)) == [])
    }

    @Test func insertingAnExistingIdMovesItAndReportsNotNew() {
        let index = RegionIndex<String>()
        let home = GeoBox(minLatitude: 52.5, maxLatitude: 52.51, minLongitude: 13.4, maxLongitude: 13.41)
        let work = GeoBox(minLatitude: 48.1, maxLatitude: 48.11, minLongitude: 11.5, maxLongitude: 11.51)
        #expect(index.insert("a", home))
        #expect(!index.insert("a", work))
        #expect(index.count == 1)
        #expect(index.box(of: "a") == work)
        #expect(index.candidates(Coordinate(latitude: 52.505, longitude: 13.405)) == [])
        #expect(index.candidates(Coordinate(latitude: 48.105, longitude: 11.505)) == ["a"])
    }

    @Test func updateAndRemoveOfAnUnknownIdDoNothing() {
        let index = RegionIndex<String>()
        let box = GeoBox(minLatitude: 0, maxLatitude: 1, minLongitude: 0, maxLongitude: 1)
        #expect(!index.update("x", box))
        #expect(!index.remove("x"))
        #expect(index.count == 0)
        #expect(index.candidates(Coordinate(latitude: 0.5, longitude: 0.5)) == [])
    }

    /// A box moved between levels (fine → scanned list → across the antimeridian) leaves nothing behind.
    @Test func updateAcrossLevelsLeavesNoStaleEntries() {
        let index = RegionIndex<Int>(cellDegrees: 1)
        index.insert(7, GeoBox(minLatitude: 10, maxLatitude: 11, minLongitude: 10, maxLongitude: 11))
        index.update(7, GeoBox(minLatitude: -90, maxLatitude: 90, minLongitude: -180, maxLongitude: 180))
        #expect(index.candidates(Coordinate(latitude: -50, longitude: 100)) == [7])
        index.update(7, GeoBox(minLatitude: 10, maxLatitude: 20, minLongitude: 170, maxLongitude: -170))
        #expect(index.candidates(Coordinate(latitude: -50, longitude: 100)) == [])
        #expect(index.candidates(Coordinate(latitude: 10.5, longitude: 10.5)) == [])
        #expect(index.candidates(Coordinate(latitude: 15, longitude: -175)) == [7])
        index.remove(7)
        #expect(index.candidates(Coordinate(latitude: 15, longitude: -175)) == [])
    }
}

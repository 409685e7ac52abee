import LocusCore
import LocusRegions

/// Seeded (SplitMix64), so a failing random case can be replayed exactly.
struct IndexTestRandom: RandomNumberGenerator {
    var source: SplitMix64
    init(seed: UInt64) { source = SplitMix64(seed: seed) }
    mutating func next() -> UInt64 { source.next() }

    /// A box of one of the shapes the index treats differently: small (fine cells), large
    /// (coarse cells), huge (the scanned list), crossing the antimeridian, touching a pole.
    mutating func box() -> GeoBox {
        let kind = Int.random(in: 0..<10, using: &self)
        let size: Double = switch kind {
        case 0..<5: .random(in: 0...3, using: &self)
        case 5..<8: .random(in: 3...40, using: &self)
        default: .random(in: 40...300, using: &self)
        }
        var minLat = Double.random(in: -90...90, using: &self)
        var maxLat = min(90, minLat + size * .random(in: 0.2...1, using: &self))
        if Int.random(in: 0..<8, using: &self) == 0 { maxLat = 90 }           // north polar cap
        if Int.random(in: 0..<8, using: &self) == 0 { minLat = -90; maxLat = max(maxLat, -90) }
        let minLon = Double.random(in: -180..<180, using: &self)
        var maxLon = minLon + size
        if maxLon >= 180 { maxLon -= 360 }                                       // crosses the antimeridian
        if kind == 9 && Bool.random(using: &self) { return GeoBox(minLatitude: minLat, maxLatitude: maxLat, minLongitude: -180, maxLongitude: 180) }
        return GeoBox(minLatitude: minLat, maxLatitude: maxLat, minLongitude: minLon, maxLongitude: maxLon)
    }

    /// A point: uniform, or on a corner of one of `boxes` (edges are included in boxes), or on a pole.
    mutating func point(near boxes: [GeoBox]) -> Coordinate {
        switch Int.random(in: 0..<6, using: &self) {
        case 0 where !boxes.isEmpty:
            let b = boxes.randomElement(using: &self)!
            return Coordinate(latitude: Bool.random(using: &self) ? b.minLatitude : b.maxLatitude,
                              longitude: Bool.random(using: &self) ? b.minLongitude : b.maxLongitude)
        case 1:
            return Coordinate(latitude: Bool.random(using: &self) ? 90 : -90, longitude: .random(in: -180..<180, using: &self))
        case 2:
            return Coordinate(latitude: .random(in: -90...90, using: &self), longitude: Bool.random(using: &self) ? -180 : 179.999_999)
        default:
            return Coordinate(latitude: .random(in: -90...90, using: &self), longitude: .random(in: -180..<180, using: &self))
        }
    }
}

extension RegionIndex {
    /// The query's answer as a sorted array (the query itself promises no order).
    func candidates(_ c: Coordinate) -> [ID] where ID: Comparable {
        var found: [ID] = []
        query(c) { found.append($0) }
        return found.sorted()
    }
}

/// What the index must answer: every id whose box contains the point, by a full scan.
func bruteForce<ID: Comparable>(_ boxes: [ID: GeoBox], _ c: Coordinate) -> [ID] {
    boxes.filter { $0.value.contains(c) }.map(\.key).sorted()
}

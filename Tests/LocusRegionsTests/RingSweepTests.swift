import Foundation
import LocusCore
import Testing
@testable import LocusRegions

/// Issue 29 item 1: the simplicity check compared every pair of edges, O(n²): four restored
/// 30,000-vertex polygons kept the region service inside `receive` for seconds. The sweep must
/// give the same verdict as every-pair checking, degenerate rings included, in O(n log n).
@Suite struct RingSweepTests {
    /// A closed ring without repeated consecutive positions, from `points`.
    static func ring(_ points: [PlanePoint]) -> [PlanePoint]? {
        var out: [PlanePoint] = []
        for p in points where out.last != p { out.append(p) }
        while out.count > 1 && out.last == out.first { out.removeLast() }
        guard out.count >= 3 else { return nil }
        return out + [out[0]]
    }

    static func verdicts(_ v: [PlanePoint]) -> (sweep: Bool, pairs: Bool) {
        let sweep = (try? PolygonRegion.checkSimple(v, name: "ring 0")) != nil
        return (sweep, PolygonRegion.checkSimpleByPairs(v))
    }

    /// Points on a small integer grid: collinear edges, vertices on edges, touching and
    /// overlapping edges, vertical edges — every degenerate case, thousands of times.
    @Test(arguments: [3, 5, 8])
    func agreesWithEveryPairCheckingOnDegenerateRings(grid: Int) {
        var random = SplitMix64(seed: UInt64(grid) * 7919)
        var simple = 0, checked = 0
        for round in 0 ..< 20_000 {
            let count = 3 + Int(random.next() % 9)
            let points = (0 ..< count).map { _ in
                PlanePoint(x: Double(random.next() % UInt64(grid)), y: Double(random.next() % UInt64(grid)))
            }
            guard let v = Self.ring(points) else { continue }
            let (sweep, pairs) = Self.verdicts(v)
            checked += 1
            if pairs { simple += 1 }
            if sweep != pairs {
                Issue.record("round \(round): sweep says \(sweep ? "simple" : "not simple"), every pair says \(pairs ? "simple" : "not simple"): \(v.map { "(\(Int($0.x)),\(Int($0.y)))" }.joined())")
                return
            }
        }
        // Both kinds were met in numbers, or the comparison says little.
        #expect(simple > 200 && checked - simple > 200, "simple \(simple) of \(checked)")
    }

    /// Star-shaped rings are simple; one moved vertex makes many of them cross.
    @Test func agreesOnLargeRandomRings() {
        var random = SplitMix64(seed: 42)
        for _ in 0 ..< 40 {
            let n = 50 + Int(random.next() % 400)
            var v = (0 ..< n).map { k -> PlanePoint in
                let a = Double(k) / Double(n) * 2 * .pi
                let r = 0.5 + Double(random.next() % 1000) / 1000
                return PlanePoint(x: 13 + r * cos(a) * 0.01, y: 52 + r * sin(a) * 0.01)
            }
            v.append(v[0])
            var (sweep, pairs) = Self.verdicts(v)
            #expect(sweep && pairs)
            let k = 1 + Int(random.next() % UInt64(n - 2))
            v[k] = PlanePoint(x: 13 + Double(random.next() % 2000) / 100_000 - 0.01, y: 52 + Double(random.next() % 2000) / 100_000 - 0.01)
            (sweep, pairs) = Self.verdicts(v)
            #expect(sweep == pairs)
        }
    }

    /// The size the probe restored: 30,000 vertices, checked in well under a second (every pair
    /// took seconds); a crossing added at the far end is still found.
    @Test func aThirtyThousandVertexRingIsCheckedQuickly() throws {
        let n = 30_000
        var ring = (0 ..< n).map { k -> Coordinate in
            let a = Double(k) / Double(n) * 2 * .pi
            return Coordinate(latitude: 52 + 0.05 * sin(a) * (1 + 0.1 * sin(40 * a)), longitude: 13 + 0.05 * cos(a))
        }
        ring.append(ring[0])
        _ = try PolygonRegion(polygons: [[ring]])
        var crossed = ring
        crossed.swapAt(n - 10, n - 20)
        #expect(throws: RegionGeometryError.self) { try PolygonRegion(polygons: [[crossed]]) }
    }
}

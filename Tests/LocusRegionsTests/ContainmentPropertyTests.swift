import Foundation
import LocusCore
import LocusRegions
import Testing

/// Property-based tests of region containment: random shapes and points, the module's answer
/// against a brute-force reference written here.
///
/// The model the reference follows is the one `PolygonRegion` documents: edges are straight
/// lines in the lon/lat plane, a ring crossing the antimeridian is unwrapped (each step the
/// shorter way round), the boundary belongs to the region, a point is in a polygon when it is
/// in the outer ring and not strictly inside a hole, in a MultiPolygon when it is in any part.
/// The reference uses the winding number (the module uses even-odd crossings) and its own
/// longitude frames, taken from how the shapes were generated, not from the module.
///
/// Points within `dontCare` degrees of an edge are not compared: there the answer depends on
/// the last bits of the arithmetic, which the model leaves open. Vertices themselves are exact
/// and must be inside.
///
/// Reproducing a failure: every case has its own seed, printed with the failure; run
/// `LOCUS_PROPERTY_SEED=<seed> swift test --filter ContainmentPropertyTests` to rerun just that
/// case. `LOCUS_PROPERTY_SEED=random` runs the usual number of cases from a random base seed
/// (printed), for exploring beyond the fixed default.
@Suite struct ContainmentPropertyTests {
    /// Degrees: points nearer than this to an edge (in the lon/lat plane) are "don't care".
    static let dontCare = 1e-9

    static let polygonCases = 700
    static let pointsPerPolygon = 40
    static let circleCases = 6_000

    // MARK: - Properties

    @Test func polygonContainsAgreesWithAWindingNumberReference() {
        var compared = 0, skippedNearEdge = 0, vertices = 0, rejected = 0
        for seed in Self.seeds(count: Self.polygonCases, property: 1) {
            var random = PropertyRandom(seed: seed)
            let shape = random.shape()
            let region: PolygonRegion
            do { region = try PolygonRegion(polygons: shape.geoJSONPolygons) } catch {
                // A star-shaped ring with vertices sorted by angle is simple; the validation
                // may still see two nearly collinear edges "touch" at tiny scales. Counted below.
                rejected += 1
                continue
            }
            for _ in 0 ..< Self.pointsPerPolygon {
                let query = random.point(for: shape)
                let actual = region.contains(query.coordinate)
                if query.isVertex {
                    vertices += 1
                    if !actual {
                        Self.fail(seed, "vertex \(query.coordinate) of \(shape.summary) is not contained (boundary must be inside)")
                        return
                    }
                    continue
                }
                guard let expected = Reference.contains(shape, query.coordinate) else { skippedNearEdge += 1; continue }
                compared += 1
                if actual != expected {
                    Self.fail(seed, "\(shape.summary): contains(lat \(query.coordinate.latitude), lon \(query.coordinate.longitude)) [\(query.kind)] is \(actual), the reference says \(expected)")
                    return
                }
            }
        }
        // The generator is meant to produce valid shapes, and enough points of every kind.
        #expect(rejected * 100 <= Self.polygonCases, "\(rejected) of \(Self.polygonCases) generated shapes were rejected by validation")
        #expect(compared >= Self.polygonCases * Self.pointsPerPolygon / 2, "only \(compared) points compared")
        #expect(vertices > 100)
        #expect(skippedNearEdge < compared / 20, "\(skippedNearEdge) points fell in the don't-care band")
    }

    @Test func polygonSignedDistanceHasTheSignOfContains() {
        var compared = 0
        // Fewer shapes than the containment property: each signed distance costs a geodesic.
        for seed in Self.seeds(count: Self.polygonCases / 3, property: 2) {
            var random = PropertyRandom(seed: seed)
            let shape = random.shape()
            guard let region = try? PolygonRegion(polygons: shape.geoJSONPolygons) else { continue }
            for _ in 0 ..< Self.pointsPerPolygon {
                let c = random.point(for: shape).coordinate
                let inside = region.contains(c)
                let d = region.signedDistance(to: c)
                compared += 1
                if inside != (d <= 0) || !d.isFinite {
                    Self.fail(seed, "\(shape.summary): at lat \(c.latitude), lon \(c.longitude) contains is \(inside) but signedDistance is \(d)")
                    return
                }
            }
        }
        #expect(compared > 5_000)
    }

    @Test func circleContainsAgreesWithTheGeodesicDistance() {
        var nearBoundary = 0
        for seed in Self.seeds(count: Self.circleCases, property: 3) {
            var random = PropertyRandom(seed: seed)
            let (centre, radius) = random.circle()
            let circle: CircleRegion
            do { circle = try CircleRegion(center: centre, radius: radius) } catch {
                Self.fail(seed, "circle at \(centre) radius \(radius) m rejected: \(error)")
                return
            }
            let (point, relative) = random.point(nearCircle: centre, radius: radius)
            let distance = Geodesic.distance(from: centre, to: point)
            let expected = distance <= radius
            if abs(distance - radius) < radius * 2e-3 { nearBoundary += 1 }
            let actual = circle.contains(point)
            if actual != expected {
                Self.fail(seed, "circle at lat \(centre.latitude), lon \(centre.longitude), radius \(radius) m: contains(lat \(point.latitude), lon \(point.longitude)) is \(actual), but the geodesic distance is \(distance) m (point drawn at \(relative) × radius)")
                return
            }
            let signed = circle.signedDistance(to: point)
            if (signed <= 0) != actual {
                Self.fail(seed, "circle at \(centre), radius \(radius) m: signedDistance \(signed) at \(point) disagrees with contains = \(actual)")
                return
            }
        }
        // Most points are drawn in the band where the approximate distance must not decide.
        #expect(nearBoundary > Self.circleCases / 3)
    }

    // MARK: - Seeds

    /// The seed of each case: derived from a fixed base (the same cases every run), or only
    /// the seed given in `LOCUS_PROPERTY_SEED`, or — for `random` — from a random base.
    static func seeds(count: Int, property: UInt64) -> [UInt64] {
        var base: UInt64 = 0x5EED_1_0CA5 &* property
        if let given = ProcessInfo.processInfo.environment["LOCUS_PROPERTY_SEED"] {
            if given == "random" {
                base = UInt64.random(in: 0 ... .max)
                print("ContainmentPropertyTests: property \(property) base seed \(hex(base))")
            } else if let seed = UInt64(given.hasPrefix("0x") ? String(given.dropFirst(2)) : given, radix: given.hasPrefix("0x") ? 16 : 10) {
                return [seed]
            }
        }
        var mixer = PropertyRandom(seed: base)
        return (0 ..< count).map { _ in mixer.next() }
    }

    static func hex(_ seed: UInt64) -> String { "0x" + String(seed, radix: 16) }

    static func fail(_ seed: UInt64, _ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let text = "seed \(hex(seed)): \(message) — rerun with LOCUS_PROPERTY_SEED=\(hex(seed))"
        print("ContainmentPropertyTests: " + text)
        Issue.record(Comment(rawValue: text), sourceLocation: sourceLocation)
    }
}

// MARK: - Generated shapes

/// A point in the lon/lat plane; x is longitude, possibly outside [-180, 180) (unwrapped).
struct LonLat: Equatable {
    var x: Double
    var y: Double
}

/// One generated polygon: rings in its own unwrapped longitude frame, the outer ring first.
struct GeneratedPolygon {
    var rings: [[LonLat]]
    /// The centre the rings are star-shaped around. Its longitude centres the frame: a query
    /// longitude is taken within ±180° of it.
    var centre: LonLat
}

struct GeneratedShape {
    enum Zone: CaseIterable { case equator, midLatitude, nearPole, antimeridian }
    enum Kind: CaseIterable { case simple, withHoles, multiPolygon }

    let zone: Zone
    let kind: Kind
    let polygons: [GeneratedPolygon]
    /// Size of the shape (degrees of latitude), for scaling offsets.
    let scale: Double
    /// Every vertex of every ring, unwrapped, and their bounds: worked out once per shape,
    /// not once per query point.
    let allVertices: [LonLat]
    let minX, maxX, minY, maxY: Double

    init(zone: Zone, kind: Kind, polygons: [GeneratedPolygon], scale: Double) {
        self.zone = zone
        self.kind = kind
        self.polygons = polygons
        self.scale = scale
        allVertices = polygons.flatMap { $0.rings.flatMap { $0 } }
        let xs = allVertices.map(\.x), ys = allVertices.map(\.y)
        (minX, maxX, minY, maxY) = (xs.min()!, xs.max()!, ys.min()!, ys.max()!)
    }

    /// As GeoJSON would carry it: longitudes in [-180, 180), so rings over the antimeridian
    /// jump from 179.x to -179.x and the module has to unwrap them.
    var geoJSONPolygons: [[[Coordinate]]] {
        polygons.map { $0.rings.map { $0.map { Coordinate(latitude: $0.y, longitude: normalizedLongitude($0.x)) } } }
    }

    var summary: String {
        let counts = polygons.map { $0.rings.map { "\($0.count - 1)" }.joined(separator: "+") }.joined(separator: ", ")
        return "\(kind) \(zone) shape (vertices per ring: \(counts); scale \(scale)°)"
    }
}

/// Longitude in [-180, 180); values already there unchanged.
func normalizedLongitude(_ x: Double) -> Double {
    if x >= -180 && x < 180 { return x }
    var y = x.truncatingRemainder(dividingBy: 360)
    if y >= 180 { y -= 360 } else if y < -180 { y += 360 }
    return y
}

struct QueryPoint {
    enum Kind: String { case uniform, nearVertex, nearEdge, vertex, interior }
    var coordinate: Coordinate
    var kind: Kind
    var isVertex: Bool { kind == .vertex }
}

// MARK: - Reference

enum Reference {
    /// Brute force: nil when the point is within `dontCare` of an edge, else whether it is in
    /// the shape by winding numbers over every ring.
    static func contains(_ shape: GeneratedShape, _ c: Coordinate) -> Bool? {
        var inside = false
        for polygon in shape.polygons {
            // The query in this polygon's frame: the longitude within ±180° of its centre.
            let x = c.longitude - 360 * ((c.longitude - polygon.centre.x) / 360).rounded()
            let p = LonLat(x: x, y: c.latitude)
            for ring in polygon.rings where distanceToRing(p, ring) < ContainmentPropertyTests.dontCare { return nil }
            guard windingNumber(p, polygon.rings[0]) != 0 else { continue }
            if !polygon.rings.dropFirst().contains(where: { windingNumber(p, $0) != 0 }) { inside = true }
        }
        return inside
    }

    /// Sunday's winding number: upward edges with p on their left count +1, downward edges
    /// with p on their right −1. Non-zero means inside a simple ring (either orientation).
    static func windingNumber(_ p: LonLat, _ ring: [LonLat]) -> Int {
        var wn = 0
        for i in 0 ..< ring.count - 1 {
            let a = ring[i], b = ring[i + 1]
            let left = (b.x - a.x) * (p.y - a.y) - (p.x - a.x) * (b.y - a.y)
            if a.y <= p.y {
                if b.y > p.y && left > 0 { wn += 1 }
            } else if b.y <= p.y && left < 0 {
                wn -= 1
            }
        }
        return wn
    }

    /// Euclidean distance in the lon/lat plane from p to the nearest edge of the ring.
    static func distanceToRing(_ p: LonLat, _ ring: [LonLat]) -> Double {
        var best = Double.infinity
        for i in 0 ..< ring.count - 1 {
            let a = ring[i], b = ring[i + 1]
            let dx = b.x - a.x, dy = b.y - a.y
            let t = max(0, min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / (dx * dx + dy * dy)))
            best = min(best, hypot(a.x + t * dx - p.x, a.y + t * dy - p.y))
        }
        return best
    }
}

// MARK: - Generators

/// Seeded (SplitMix64): a case is reproduced from its seed alone.
struct PropertyRandom: RandomNumberGenerator {
    var source: SplitMix64
    init(seed: UInt64) { source = SplitMix64(seed: seed) }
    mutating func next() -> UInt64 { source.next() }

    mutating func uniform(_ range: ClosedRange<Double>) -> Double { .random(in: range, using: &self) }
    mutating func sign() -> Double { Bool.random(using: &self) ? 1 : -1 }
    /// 10^u for u uniform in the range: sizes spread evenly over orders of magnitude.
    mutating func logUniform(_ exponents: ClosedRange<Double>) -> Double { pow(10, uniform(exponents)) }

    /// A random shape: zone and kind uniformly, size from 10 m to 5°.
    mutating func shape() -> GeneratedShape {
        let zone = GeneratedShape.Zone.allCases.randomElement(using: &self)!
        let kind = GeneratedShape.Kind.allCases.randomElement(using: &self)!
        var cy: Double, cx: Double
        switch zone {
        case .equator: cy = uniform(-5 ... 5); cx = uniform(-170 ... 170)
        case .midLatitude: cy = sign() * uniform(30 ... 60); cx = uniform(-170 ... 170)
        case .nearPole: cy = sign() * uniform(76 ... 82); cx = uniform(-170 ... 170)
        case .antimeridian: cy = uniform(-60 ... 60); cx = 180
        }
        // Latitude half-size; vertices must stay within ±85° (the module's limit).
        var ry = logUniform(-4 ... 0.7)
        if zone == .nearPole { ry = min(ry, 84.5 - abs(cy)) }
        // Longitude half-size: roughly round on the ground.
        let rx = ry / cos(cy * .pi / 180)
        let parts = kind == .multiPolygon ? Int.random(in: 2 ... 3, using: &self) : 1
        if zone == .antimeridian {
            // Straddle 180°: shift by up to half a part so the crossing falls anywhere.
            cx += uniform(-0.5 ... 0.5) * rx
        }
        // Parts side by side, 2.5 half-widths apart (each fits in its unit ellipse): disjoint.
        let firstX = cx - Double(parts - 1) * 1.25 * rx
        var polygons: [GeneratedPolygon] = []
        for k in 0 ..< parts {
            let px = firstX + Double(k) * 2.5 * rx
            let centre = LonLat(x: px, y: cy)
            let outerVertices = Int.random(in: 3 ... 60, using: &self)
            let (outer, inscribed) = starRing(centre: centre, rx: rx, ry: ry, vertices: outerVertices, innerRadius: 0.3)
            var rings = [outer]
            let holes = kind == .withHoles || (kind == .multiPolygon && Bool.random(using: &self)) ? Int.random(in: 1 ... 2, using: &self) : 0
            if holes == 1 {
                let h = inscribed * uniform(0.2 ... 0.85)
                let n = Int.random(in: 3 ... 20, using: &self)
                rings.append(starRing(centre: centre, rx: rx * h, ry: ry * h, vertices: n, innerRadius: 0.4).ring)
            } else if holes == 2 {
                // Two holes on either side of the centre, each in its half of the inscribed disc.
                for side in [-1.0, 1.0] {
                    let h = inscribed * uniform(0.1 ... 0.4)
                    let hc = LonLat(x: px + side * inscribed / 2 * rx, y: cy)
                    let n = Int.random(in: 3 ... 20, using: &self)
                    rings.append(starRing(centre: hc, rx: rx * h, ry: ry * h, vertices: n, innerRadius: 0.4).ring)
                }
            }
            polygons.append(GeneratedPolygon(rings: rings, centre: centre))
        }
        return GeneratedShape(zone: zone, kind: kind, polygons: polygons, scale: ry)
    }

    /// A closed star-shaped ring around `centre`: vertex i at angle about (i + ½)·2π/n, at a
    /// radius in [innerRadius, 1] of the ellipse (rx, ry). Consecutive angles are less than π
    /// apart, so the ring is simple and contains the disc of radius `inscribed` (in units of
    /// the ellipse). Either orientation, at random.
    mutating func starRing(centre: LonLat, rx: Double, ry: Double, vertices n: Int, innerRadius: Double) -> (ring: [LonLat], inscribed: Double) {
        let jitter = n == 3 ? 0.4 : 0.8  // keeps every gap below π
        let phase = uniform(0 ... 2 * .pi)
        var unit: [LonLat] = []
        for i in 0 ..< n {
            let angle = phase + (Double(i) + 0.5 + (uniform(0 ... 1) - 0.5) * jitter) * 2 * .pi / Double(n)
            let r = uniform(innerRadius ... 1)
            unit.append(LonLat(x: r * cos(angle), y: r * sin(angle)))
        }
        if Bool.random(using: &self) { unit.reverse() }
        unit.append(unit[0])
        let inscribed = Reference.distanceToRing(LonLat(x: 0, y: 0), unit)
        let ring = unit.map { LonLat(x: centre.x + $0.x * rx, y: centre.y + $0.y * ry) }
        return (ring, inscribed)
    }

    /// A query point for the shape: uniform over its box and a margin, inside a part, on a
    /// vertex, or close to a vertex or an edge (from 5e-10° to 1 % of the shape's size away, both sides).
    mutating func point(for shape: GeneratedShape) -> QueryPoint {
        let vertices = shape.allVertices
        let p: LonLat
        let kind: QueryPoint.Kind
        switch Int.random(in: 0 ..< 20, using: &self) {
        case 0 ..< 9:
            kind = .uniform
            let (minX, maxX, minY, maxY) = (shape.minX, shape.maxX, shape.minY, shape.maxY)
            let mx = (maxX - minX) * 0.25, my = (maxY - minY) * 0.25
            p = LonLat(x: uniform(minX - mx ... maxX + mx), y: uniform(max(-89.9, minY - my) ... min(89.9, maxY + my)))
        case 9 ..< 12:
            kind = .interior
            let polygon = shape.polygons.randomElement(using: &self)!
            let o = polygon.rings[0].randomElement(using: &self)!  // from the centre towards a vertex
            let c = polygon.centre
            let t = uniform(0 ... 1)
            p = LonLat(x: c.x + t * (o.x - c.x), y: c.y + t * (o.y - c.y))
        case 12:
            kind = .vertex
            p = vertices.randomElement(using: &self)!
            // Exactly as the module was given it.
            return QueryPoint(coordinate: Coordinate(latitude: p.y, longitude: normalizedLongitude(p.x)), kind: kind)
        case 13 ..< 16:
            kind = .nearVertex
            let v = vertices.randomElement(using: &self)!
            let d = logUniform(-8.5 ... log10(shape.scale) - 2)
            let angle = uniform(0 ... 2 * .pi)
            p = LonLat(x: v.x + d * cos(angle), y: v.y + d * sin(angle))
        default:
            kind = .nearEdge
            let ring = shape.polygons.randomElement(using: &self)!.rings.randomElement(using: &self)!
            let i = Int.random(in: 0 ..< ring.count - 1, using: &self)
            let a = ring[i], b = ring[i + 1]
            let t = uniform(0 ... 1)
            let length = hypot(b.x - a.x, b.y - a.y)
            let d = sign() * logUniform(-9.3 ... log10(shape.scale) - 2)
            p = LonLat(x: a.x + t * (b.x - a.x) - d * (b.y - a.y) / length, y: a.y + t * (b.y - a.y) + d * (b.x - a.x) / length)
        }
        var longitude = normalizedLongitude(p.x)
        // Sometimes in another 360° frame: the module must reduce any longitude.
        if Int.random(in: 0 ..< 10, using: &self) == 0 { longitude += sign() * 360 }
        return QueryPoint(coordinate: Coordinate(latitude: p.y, longitude: longitude), kind: kind)
    }

    /// A circle centre and radius: anywhere, near a pole, on the antimeridian; 1 m to 1000 km
    /// (so both the approximate-distance path, up to 100 km within ±70°, and the exact one).
    mutating func circle() -> (Coordinate, Double) {
        let latitude: Double
        var longitude = uniform(-180 ... 179.999_999)
        switch Int.random(in: 0 ..< 5, using: &self) {
        case 0: latitude = uniform(-5 ... 5)
        case 1: latitude = sign() * uniform(30 ... 70)
        case 2: latitude = sign() * uniform(70 ... 89.999)
        case 3: latitude = uniform(-80 ... 80); longitude = sign() * uniform(179.9 ... 180)
        default: latitude = uniform(-90 ... 90)
        }
        return (Coordinate(latitude: latitude, longitude: longitude), logUniform(0 ... 6))
    }

    /// A point at a random bearing, mostly close to the circle's boundary: within ±1 % of
    /// the radius (across the approximate-distance band of ±0.1 %), within ±1e-7, or
    /// anywhere up to twice the radius. Returns the drawn distance over the radius too.
    mutating func point(nearCircle centre: Coordinate, radius: Double) -> (Coordinate, Double) {
        let relative: Double = switch Int.random(in: 0 ..< 6, using: &self) {
        case 0, 1: 1 + uniform(-2e-3 ... 2e-3)
        case 2: 1 + uniform(-1e-2 ... 1e-2)
        case 3: 1 + uniform(-1e-7 ... 1e-7)
        case 4: 1 + sign() * logUniform(-12 ... -4)
        default: uniform(0 ... 2)
        }
        var p = Geodesic.destination(from: centre, bearing: uniform(0 ... 360), distance: radius * relative)
        if Int.random(in: 0 ..< 10, using: &self) == 0 { p.longitude += sign() * 360 }
        return (p, relative)
    }
}

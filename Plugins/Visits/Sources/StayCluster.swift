import LocusCore

/// A usable fix as the visit detector keeps it.
struct StayFix: Codable, Equatable {
    var time: EventTime
    var coordinate: Coordinate
    /// 1-sigma horizontal accuracy, metres, if the source reported one.
    var accuracy: Double?
}

/// Consecutive fixes that may be one stay, oldest first, with their running centre (the mean).
///
/// Fixes are only ever appended at the end and dropped from the front, so the mean is kept as
/// running sums and updating it costs O(1). Longitudes are summed as offsets from the first
/// fix's longitude, wrapped to ±180°, so a stay on the antimeridian does not average to 0°.
struct StayCluster {
    /// Storage; the live fixes are `storage[head...]`. Dropping from the front only moves
    /// `head`, and the array is compacted now and then, so sliding along a drive stays O(1) per fix.
    private var storage: [StayFix] = []
    private var head = 0
    private var latitudeSum = 0.0
    private var longitudeOffsetSum = 0.0
    private var referenceLongitude = 0.0

    var isEmpty: Bool { head == storage.count }
    var count: Int { storage.count - head }
    var first: StayFix? { isEmpty ? nil : storage[head] }
    var last: StayFix? { isEmpty ? nil : storage[storage.count - 1] }
    var fixes: ArraySlice<StayFix> { storage[head...] }

    /// Seconds from the first fix to the last (0 when empty).
    var span: Double {
        guard let first, let last else { return 0 }
        return last.time.seconds(since: first.time)
    }

    /// The mean position of the fixes (meaningless when empty).
    var centre: Coordinate {
        let n = Double(max(count, 1))
        return Coordinate(latitude: latitudeSum / n, longitude: wrapped(referenceLongitude + longitudeOffsetSum / n))
    }

    /// Metres from the centre to `coordinate`, on the WGS-84 ellipsoid.
    func distance(to coordinate: Coordinate) -> Double {
        Geodesic.distance(from: centre, to: coordinate)
    }

    mutating func append(_ fix: StayFix) {
        if isEmpty {
            // Fresh sums: no rounding left over from fixes that were dropped.
            storage.removeAll(keepingCapacity: true)
            head = 0
            latitudeSum = 0
            longitudeOffsetSum = 0
            referenceLongitude = fix.coordinate.longitude
        }
        storage.append(fix)
        latitudeSum += fix.coordinate.latitude
        longitudeOffsetSum += longitudeOffset(fix.coordinate.longitude)
    }

    mutating func removeFirst() {
        guard let fix = first else { return }
        latitudeSum -= fix.coordinate.latitude
        longitudeOffsetSum -= longitudeOffset(fix.coordinate.longitude)
        head += 1
        if head >= 256, head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
    }

    /// Drops the oldest fixes while they lie more than `radius` from the centre, so fixes from
    /// the approach to a place do not stay in it once the centre has settled where the source stopped.
    mutating func trimFront(radius: Double) {
        while count > 1, let oldest = first, distance(to: oldest.coordinate) > radius {
            removeFirst()
        }
    }

    /// Adds `fix` as the newest fix of a moving window: first drops the oldest fixes until `fix`
    /// lies within `radius` of the centre of those that remain (or none remain). This follows a
    /// source on the move, and keeps exactly the fixes a stay beginning now would start with.
    mutating func slide(to fix: StayFix, radius: Double) {
        while !isEmpty, distance(to: fix.coordinate) > radius {
            removeFirst()
        }
        append(fix)
        trimFront(radius: radius)
    }

    /// The radius around the centre that holds 95 % of the fixes, metres, but not less than the
    /// fixes' median reported accuracy: two identical fixes locate a place no better than each
    /// one does. 95 % rather than all, so the first fixes of the approach and a stray outlier do
    /// not make every stay look as wide as the detection radius.
    func spreadRadius() -> Double {
        let centre = self.centre
        let distances = fixes.map { Geodesic.distance(from: centre, to: $0.coordinate) }.sorted()
        guard !distances.isEmpty else { return 0 }
        let spread = distances[Int((Double(distances.count) * 0.95).rounded(.up)) - 1]
        let accuracies = fixes.compactMap(\.accuracy).sorted()
        guard !accuracies.isEmpty else { return spread }
        let median = accuracies.count % 2 == 1 ? accuracies[accuracies.count / 2]
            : (accuracies[accuracies.count / 2 - 1] + accuracies[accuracies.count / 2]) / 2
        return max(spread, median)
    }

    /// How far the fixes moved: metres between where the source was, on average, in the first
    /// half of the span and where it was in the second half; plus the fixes' mean reported
    /// accuracy (0 if none reported). A source that stands still, however noisy, is in the same
    /// place in both halves; one crawling through the radius is not.
    ///
    /// "On average" over time, each fix standing for the position until the next fix: loggers
    /// that stop writing while the device is still would otherwise have the few fixes before a
    /// long silence outweighed by many fixes of a short walk.
    func drift() -> (metres: Double, meanAccuracy: Double) {
        guard let first, let last, count > 1 else { return (0, 0) }
        let middle = first.time.milliseconds + (last.time.milliseconds - first.time.milliseconds) / 2
        var early = (lat: 0.0, lon: 0.0, weight: 0.0), late = (lat: 0.0, lon: 0.0, weight: 0.0)
        var accuracySum = 0.0, accuracies = 0.0
        let live = fixes
        for i in live.indices {
            let fix = live[i]
            if let a = fix.accuracy { accuracySum += a; accuracies += 1 }
            guard i + 1 < live.endIndex else { break }
            let start = fix.time.milliseconds, end = live[i + 1].time.milliseconds
            let before = Double(max(0, min(end, middle) - start)), after = Double(max(0, end - max(start, middle)))
            let lon = longitudeOffset(fix.coordinate.longitude)
            early = (early.lat + before * fix.coordinate.latitude, early.lon + before * lon, early.weight + before)
            late = (late.lat + after * fix.coordinate.latitude, late.lon + after * lon, late.weight + after)
        }
        let meanAccuracy = accuracies > 0 ? accuracySum / accuracies : 0
        guard early.weight > 0, late.weight > 0 else { return (0, meanAccuracy) }
        let from = Coordinate(latitude: early.lat / early.weight, longitude: wrapped(referenceLongitude + early.lon / early.weight))
        let to = Coordinate(latitude: late.lat / late.weight, longitude: wrapped(referenceLongitude + late.lon / late.weight))
        return (Geodesic.distance(from: from, to: to), meanAccuracy)
    }

    private func longitudeOffset(_ longitude: Double) -> Double {
        (longitude - referenceLongitude).remainder(dividingBy: 360)
    }

    private func wrapped(_ longitude: Double) -> Double {
        longitude > 180 ? longitude - 360 : longitude < -180 ? longitude + 360 : longitude
    }
}

/// Part of the visits service's state. Encodes the live fixes and the running sums as they are:
/// sums recomputed from the fixes could round differently, and a restored cluster must go on
/// bit for bit. Two clusters are equal when those are; dropped fixes still in storage do not count.
extension StayCluster: Codable, Equatable {
    private enum CodingKeys: String, CodingKey {
        case fixes, latitudeSum = "latitude_sum", longitudeOffsetSum = "longitude_offset_sum"
        case referenceLongitude = "reference_longitude"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        storage = try c.decode([StayFix].self, forKey: .fixes)
        latitudeSum = try c.decode(Double.self, forKey: .latitudeSum)
        longitudeOffsetSum = try c.decode(Double.self, forKey: .longitudeOffsetSum)
        referenceLongitude = try c.decode(Double.self, forKey: .referenceLongitude)
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Array(fixes), forKey: .fixes)
        try c.encode(latitudeSum, forKey: .latitudeSum)
        try c.encode(longitudeOffsetSum, forKey: .longitudeOffsetSum)
        try c.encode(referenceLongitude, forKey: .referenceLongitude)
    }

    static func == (a: StayCluster, b: StayCluster) -> Bool {
        a.fixes.elementsEqual(b.fixes) && a.latitudeSum == b.latitudeSum && a.longitudeOffsetSum == b.longitudeOffsetSum
            && a.referenceLongitude == b.referenceLongitude
    }
}

import LocusCore

/// Decides which accepted fixes become `location.update`s: `distance_filter`, `min_interval`
/// and `max_interval`, all measured from the last published update.
struct UpdateThrottle {
    let distanceFilter: Double
    let minInterval: Double
    let maxInterval: Double
    /// The last published update: all the throttle remembers (its state in the service's).
    var lastPublished: TimedFix?

    init(distanceFilter: Double, minInterval: Double, maxInterval: Double) {
        self.distanceFilter = distanceFilter
        self.minInterval = minInterval
        self.maxInterval = maxInterval
    }

    /// The first fix is always published. After that a fix must be `min_interval` after the last
    /// update and `distance_filter` away from it — or, once `max_interval` has passed, it is
    /// published wherever it is, so subscribers hear "still here" while fixes keep coming.
    func shouldPublish(_ f: TimedFix) -> Bool {
        guard let last = lastPublished else { return true }
        let elapsed = f.time.seconds(since: last.time)
        if minInterval > 0, elapsed < minInterval { return false }
        if maxInterval > 0, elapsed >= maxInterval { return true }
        return distanceFilter == 0 || last.distance(to: f) >= distanceFilter
    }

    mutating func published(_ f: TimedFix) { lastPublished = f }
}

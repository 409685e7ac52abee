import LocusCore

/// Decides whether the device is stationary: it is when every accepted fix for
/// `stationaryTime` seconds lies within the uncertainty of the fix that started the still
/// period (the anchor).
///
/// "Within the uncertainty" means the two fixes' 1-sigma circles overlap — distance at most
/// the sum of their `h_accuracy` — or, whichever is larger, at most `minimumRadius`, for
/// sources that report no accuracy or one smaller than their jitter. A fix outside that radius
/// means the device moved: it becomes the new anchor and the still period starts again.
struct StationaryDetector {
    enum Change: Equatable {
        case none
        /// Still since `since` (the anchor's time) for at least the stationary time.
        case becameStationary(since: EventTime)
        /// Left the circle around the anchor, `distance` metres from it.
        case startedMoving(distance: Double)
    }

    let stationaryTime: Double
    let minimumRadius: Double
    private var anchor: TimedFix?
    private(set) var isStationary = false

    init(stationaryTime: Double, minimumRadius: Double) {
        self.stationaryTime = stationaryTime
        self.minimumRadius = minimumRadius
    }

    /// What the detector remembers: the anchor and whether the device is stationary.
    struct State: Codable, Equatable {
        var anchor: TimedFix?
        var isStationary: Bool
    }

    var state: State {
        get { State(anchor: anchor, isStationary: isStationary) }
        set { (anchor, isStationary) = (newValue.anchor, newValue.isStationary) }
    }

    mutating func observe(_ f: TimedFix) -> Change {
        guard let a = anchor else {
            anchor = f
            return .none
        }
        let distance = a.distance(to: f)
        // Unknown accuracies add nothing; the minimum radius still applies.
        let radius = max(minimumRadius, (a.fix.horizontalAccuracy ?? 0) + (f.fix.horizontalAccuracy ?? 0))
        if distance > radius {
            anchor = f
            let wasStationary = isStationary
            isStationary = false
            return wasStationary ? .startedMoving(distance: distance) : .none
        }
        if !isStationary, f.time.seconds(since: a.time) >= stationaryTime {
            isStationary = true
            return .becameStationary(since: a.time)
        }
        return .none
    }
}

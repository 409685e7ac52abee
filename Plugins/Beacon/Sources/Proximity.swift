import LocusConditions
import Foundation

/// Core Location's proximity bands (`CLProximity`): immediate, near, far, unknown.
public enum Proximity: String, Sendable, Equatable, Comparable, Codable {
    case immediate, near, far, unknown

    var rank: Int {
        switch self {
        case .immediate: 0
        case .near: 1
        case .far: 2
        case .unknown: 3
        }
    }

    public static func < (a: Proximity, b: Proximity) -> Bool { a.rank < b.rank }
}

/// Distance from RSSI and the band with hysteresis.
public struct ProximityModel: Sendable, Equatable {
    /// Path-loss exponent n of the log-distance model.
    public var pathLossExponent: Double
    /// Upper bounds, metres, of `immediate` and of `near`.
    public var immediateLimit: Double
    public var nearLimit: Double
    /// Fraction a distance must pass a band boundary by before the band changes (0.2 = 20 %).
    public var hysteresis: Double

    public init(pathLossExponent: Double = 2, immediateLimit: Double = 0.5, nearLimit: Double = 3, hysteresis: Double = 0.2) {
        self.pathLossExponent = pathLossExponent
        self.immediateLimit = immediateLimit
        self.nearLimit = nearLimit
        self.hysteresis = hysteresis
    }

    /// Log-distance path loss: RSSI(d) = P₁ₘ − 10·n·log₁₀(d), so d = 10^((P₁ₘ − RSSI) / (10·n)).
    public func distance(rssi: Double, measuredPower: Double) -> Double {
        pow(10, (measuredPower - rssi) / (10 * pathLossExponent))
    }

    /// The band of `distance` without hysteresis.
    public func band(_ distance: Double) -> Proximity {
        guard distance.isFinite, distance >= 0 else { return .unknown }
        return distance < immediateLimit ? .immediate : distance < nearLimit ? .near : .far
    }

    /// The band of `distance` coming from `current`: moving out needs the distance past the
    /// boundary by `hysteresis` of it, moving in needs it short of it by as much — so an estimate
    /// wandering around 3 m does not flip between near and far.
    public func band(_ distance: Double, from current: Proximity) -> Proximity {
        let raw = band(distance)
        guard current != .unknown, raw != .unknown, raw != current else { return raw }
        if raw > current {
            let out = band(distance / (1 + hysteresis))
            return out > current ? out : current
        }
        let inward = band(distance / (1 - hysteresis))
        return inward < current ? inward : current
    }
}

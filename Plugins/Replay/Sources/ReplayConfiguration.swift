import LocusCore

/// Options of the `replay` source.
public struct ReplayConfiguration: PluginConfiguration {
    /// How fast recorded time is played back.
    public enum Speed: Sendable, Equatable {
        /// `factor` recorded seconds per wall-clock second (1 = real time).
        case factor(Double)
        /// As fast as possible.
        case max
    }

    public var file: String
    public var speed: Speed
    public var loop: Bool
    public var topics: [String]
    public var tickInterval: Double
    public var startDelay: Double

    public static let keys: [ConfigKey] = [
        ConfigKey("file", "string", default: nil, "Locus recording to play (JSON lines of {topic, envelope}); relative to the config file."),
        ConfigKey("speed", "number or \"max\"", default: "1", "Playback speed: 1 = real time, 10 = ten times faster, max = as fast as possible."),
        ConfigKey("loop", "boolean", default: "false", "Start again at the end; event time keeps increasing across loops."),
        ConfigKey("topics", "list of strings", default: "[\"obs.\"]", "Topic prefixes to replay; others in the file are skipped (services regenerate their own events)."),
        ConfigKey("tick_interval", "number", default: "1", "Seconds of recorded time between clock.tick messages."),
        ConfigKey("start_delay", "number", default: "0", "Wall-clock seconds to wait before the first message, so outside subscribers can connect."),
    ]

    enum CodingKeys: String, CodingKey { case file, speed, loop, topics, tick_interval, start_delay }

    public init(file: String, speed: Speed = .factor(1), loop: Bool = false, topics: [String] = ["obs."],
                tickInterval: Double = 1, startDelay: Double = 0) {
        self.file = file
        self.speed = speed
        self.loop = loop
        self.topics = topics
        self.tickInterval = tickInterval
        self.startDelay = startDelay
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        file = try c.decode(String.self, forKey: .file)
        if let text = try? c.decode(String.self, forKey: .speed), text == "max" {
            speed = .max
        } else if let factor = try c.decodeIfPresent(Double.self, forKey: .speed) {
            guard factor > 0, factor.isFinite else { throw ConfigValueError(key: "speed", "speed must be a number above 0 or \"max\", found \(factor)") }
            speed = .factor(factor)
        } else {
            speed = .factor(1)
        }
        loop = try c.decodeIfPresent(Bool.self, forKey: .loop) ?? false
        topics = try c.decodeIfPresent([String].self, forKey: .topics) ?? ["obs."]
        for t in topics where !Topic.isValidPrefix(t) {
            throw ConfigValueError(key: "topics", "'\(t)' is not a topic prefix: lower-case segments of a-z 0-9 _ - joined by dots")
        }
        tickInterval = try c.decodeIfPresent(Double.self, forKey: .tick_interval) ?? 1
        guard tickInterval >= 0.01, tickInterval <= 3600 else {
            throw ConfigValueError(key: "tick_interval", "tick_interval must be between 0.01 and 3600 seconds, found \(tickInterval)")
        }
        startDelay = try c.decodeIfPresent(Double.self, forKey: .start_delay) ?? 0
        guard startDelay >= 0, startDelay <= 3600 else {
            throw ConfigValueError(key: "start_delay", "start_delay must be between 0 and 3600 seconds, found \(startDelay)")
        }
    }
}

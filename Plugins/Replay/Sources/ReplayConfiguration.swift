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

    /// The file's format: detected from its first bytes, or given.
    public enum Format: String, Sendable, Equatable, CaseIterable {
        case auto, locus, nmea, gpsd, gpx
    }

    public var file: String
    public var speed: Speed
    public var loop: Bool
    public var topics: [String]
    public var tickInterval: Double
    public var startDelay: Double
    public var format: Format
    /// Source id for NMEA, gpsd and GPX files (`obs.fix.<source>`, `Fix.source`); nil: the plugin id.
    public var source: String?
    /// NMEA only: the UTC day for epochs before the first RMC/ZDA date (midnight of that day).
    public var date: EventTime?
    /// Observations recorded before this time are skipped.
    public var start: EventTime?
    /// Playback stops at the first observation recorded after this time.
    public var end: EventTime?

    public static let keys: [ConfigKey] = [
        ConfigKey("file", "string", default: nil, "File to play: a Locus recording, NMEA log, gpsd JSON log or GPX file; relative to the config file."),
        ConfigKey("format", "auto, locus, nmea, gpsd or gpx", default: "auto", "Format of the file; auto detects it from the first bytes."),
        ConfigKey("source", "string", default: "the plugin id", "Source id for NMEA, gpsd and GPX files: topics obs.fix.<source>/obs.sky.<source> and Fix.source. Locus recordings keep their own topics."),
        ConfigKey("date", "string (YYYY-MM-DD)", default: "none", "NMEA logs only: UTC day for epochs before the first RMC/ZDA sentence gives a date."),
        ConfigKey("start", "string (ISO 8601 time)", default: "none (from the start)", "Skip observations recorded before this time."),
        ConfigKey("end", "string (ISO 8601 time)", default: "none (to the end)", "Stop after the last observation recorded at or before this time."),
        ConfigKey("speed", "number or \"max\"", default: "1", "Playback speed: 1 = real time, 10 = ten times faster, max = as fast as possible."),
        ConfigKey("loop", "boolean", default: "false", "Start again at the end; event time keeps increasing across loops."),
        ConfigKey("topics", "list of strings", default: "[\"obs.\"]", "Topic prefixes to replay; others in the file are skipped (services regenerate their own events)."),
        ConfigKey("tick_interval", "number", default: "1", "Seconds of recorded time between clock.tick messages."),
        ConfigKey("start_delay", "number", default: "0", "Wall-clock seconds to wait before the first message, so outside subscribers can connect."),
    ]

    enum CodingKeys: String, CodingKey { case file, speed, loop, topics, tick_interval, start_delay, format, source, date, start, end }

    public init(file: String, speed: Speed = .factor(1), loop: Bool = false, topics: [String] = ["obs."],
                tickInterval: Double = 1, startDelay: Double = 0, format: Format = .auto, source: String? = nil,
                date: EventTime? = nil, start: EventTime? = nil, end: EventTime? = nil) {
        self.file = file
        self.speed = speed
        self.loop = loop
        self.topics = topics
        self.tickInterval = tickInterval
        self.startDelay = startDelay
        self.format = format
        self.source = source
        self.date = date
        self.start = start
        self.end = end
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
        let formatText = try c.decodeIfPresent(String.self, forKey: .format) ?? "auto"
        guard let f = Format(rawValue: formatText) else {
            throw ConfigValueError(key: "format", "format must be one of auto, locus, nmea, gpsd, gpx; found '\(formatText)'")
        }
        format = f
        source = try c.decodeIfPresent(String.self, forKey: .source)
        if let s = source, !Topic.isValid("obs.fix." + s) || s.contains(".") {
            throw ConfigValueError(key: "source", "'\(s)' is not a source id: one topic segment of a-z 0-9 _ -")
        }
        if let text = try c.decodeIfPresent(String.self, forKey: .date) {
            guard Self.isDay(text), let t = EventTime(iso8601: text + "T00:00:00Z") else {
                throw ConfigValueError(key: "date", "date must be a day as YYYY-MM-DD, found '\(text)'")
            }
            date = t
        } else {
            date = nil
        }
        start = try Self.time(c, .start)
        end = try Self.time(c, .end)
        if let s = start, let e = end, e < s {
            throw ConfigValueError(key: "end", "end (\(e.iso8601)) is before start (\(s.iso8601))")
        }
    }

    private static func isDay(_ text: String) -> Bool {
        let b = Array(text.utf8)
        guard b.count == 10, b[4] == 0x2D, b[7] == 0x2D else { return false }
        return b.enumerated().allSatisfy { $0.offset == 4 || $0.offset == 7 || (0x30...0x39).contains($0.element) }
    }

    private static func time(_ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> EventTime? {
        guard let text = try c.decodeIfPresent(String.self, forKey: key) else { return nil }
        guard let t = EventTime(iso8601: text) else {
            throw ConfigValueError(key: key.rawValue, "\(key.rawValue) must be an ISO 8601 time such as 2024-05-17T08:00:00Z, found '\(text)'")
        }
        return t
    }
}

import LocusCore

/// Options of the `replay` source.
public struct ReplayConfiguration: DeclaredConfiguration {
    /// How fast recorded time is played back.
    public enum Speed: Sendable, Equatable, SettingValue {
        /// `factor` recorded seconds per wall-clock second (1 = real time).
        case factor(Double)
        /// As fast as possible.
        case max

        public static var settingType: String { "number or \"max\"" }
        public var settingText: String {
            switch self {
            case .max: return "max"
            case .factor(let f): return f.settingText
            }
        }

        public static func readSetting(from container: KeyedDecodingContainer<SettingKey>, forKey key: SettingKey) throws -> Speed {
            if let text = try? container.decode(String.self, forKey: key), text == "max" { return .max }
            let factor = try container.decode(Double.self, forKey: key)
            guard factor > 0, factor.isFinite else { throw ConfigValueError(key: key.stringValue, "speed must be a number above 0 or \"max\", found \(factor)") }
            return .factor(factor)
        }
    }

    /// The file's format: detected from its first bytes, or given.
    public enum Format: String, Sendable, Equatable, CaseIterable, SettingValue {
        case auto, locus, nmea, gpsd, gpx
    }

    @Setting("file", "File to play: a Locus recording, NMEA log, gpsd JSON log or GPX file; relative to the config file.")
    public var file: String

    @Setting("format", "Format of the file; auto detects it from the first bytes.")
    public var format: Format = .auto

    /// Source id for NMEA, gpsd and GPX files (`obs.fix.<source>`, `Fix.source`); nil: the plugin id.
    @Setting("source", "Source id for NMEA, gpsd and GPX files: topics obs.fix.<source>/obs.sky.<source> and Fix.source. Locus recordings keep their own topics.",
             default: "the plugin id",
             check: SettingCheck { s in s.flatMap { Topic.isValid("obs.fix." + $0) && !$0.contains(".") ? nil : "'\($0)' is not a source id: one topic segment of a-z 0-9 _ -" } })
    public var source: String? = nil

    /// NMEA only: the UTC day for epochs before the first RMC/ZDA date (midnight of that day).
    @Setting("date", "NMEA logs only: UTC day for epochs before the first RMC/ZDA sentence gives a date.", default: "none")
    public var dateSetting: Day? = nil

    /// Observations recorded before this time are skipped.
    @Setting("start", "Skip observations recorded before this time.", default: "none (from the start)")
    public var startSetting: TimeSetting? = nil

    /// Playback stops at the first observation recorded after this time.
    @Setting("end", "Stop after the last observation recorded at or before this time.", default: "none (to the end)")
    public var endSetting: TimeSetting? = nil

    @Setting("speed", "Playback speed: 1 = real time, 10 = ten times faster, max = as fast as possible.")
    public var speed: Speed = .factor(1)

    @Setting("loop", "Start again at the end; event time keeps increasing across loops.")
    public var loop: Bool = false

    @Setting("topics", "Topic prefixes to replay; others in the file are skipped (services regenerate their own events).", check: .topicPrefixes())
    public var topics: [String] = ["obs."]

    @Setting("tick_interval", "Seconds of recorded time between clock.tick messages.", check: .within(0.01...3600, unit: "seconds"))
    public var tickInterval: Double = 1

    @Setting("start_delay", "Wall-clock seconds to wait before the first message, so outside subscribers can connect.", check: .within(0...3600, unit: "seconds"))
    public var startDelay: Double = 0

    public init() {}

    /// NMEA only: midnight UTC of `date`.
    public var date: EventTime? {
        get { dateSetting?.midnight }
        set { dateSetting = newValue.map(Day.init(midnight:)) }
    }
    public var start: EventTime? {
        get { startSetting?.time }
        set { startSetting = newValue.map(TimeSetting.init(time:)) }
    }
    public var end: EventTime? {
        get { endSetting?.time }
        set { endSetting = newValue.map(TimeSetting.init(time:)) }
    }

    public func validate() throws {
        if let s = start, let e = end, e < s {
            throw ConfigValueError(key: "end", "end (\(e.iso8601)) is before start (\(s.iso8601))")
        }
    }

    /// A day written YYYY-MM-DD.
    public struct Day: SettingValue, Equatable {
        public var midnight: EventTime
        public init(midnight: EventTime) { self.midnight = midnight }
        public static var settingType: String { "string (YYYY-MM-DD)" }
        public var settingText: String { String(midnight.iso8601.prefix(10)) }
        public static func readSetting(from container: KeyedDecodingContainer<SettingKey>, forKey key: SettingKey) throws -> Day {
            let text = try container.decode(String.self, forKey: key)
            guard isDay(text), let t = EventTime(iso8601: text + "T00:00:00Z") else {
                throw ConfigValueError(key: key.stringValue, "date must be a day as YYYY-MM-DD, found '\(text)'")
            }
            return Day(midnight: t)
        }
        private static func isDay(_ text: String) -> Bool {
            let b = Array(text.utf8)
            guard b.count == 10, b[4] == 0x2D, b[7] == 0x2D else { return false }
            return b.enumerated().allSatisfy { $0.offset == 4 || $0.offset == 7 || (0x30...0x39).contains($0.element) }
        }
    }

    /// A time written in ISO 8601.
    public struct TimeSetting: SettingValue, Equatable {
        public var time: EventTime
        public init(time: EventTime) { self.time = time }
        public static var settingType: String { "string (ISO 8601 time)" }
        public var settingText: String { time.iso8601 }
        public static func readSetting(from container: KeyedDecodingContainer<SettingKey>, forKey key: SettingKey) throws -> TimeSetting {
            let text = try container.decode(String.self, forKey: key)
            guard let t = EventTime(iso8601: text) else {
                throw ConfigValueError(key: key.stringValue, "\(key.stringValue) must be an ISO 8601 time such as 2024-05-17T08:00:00Z, found '\(text)'")
            }
            return TimeSetting(time: t)
        }
    }
}

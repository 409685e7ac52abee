import LocusCore

/// Options of the `nmea-serial` source.
public struct NMEASerialConfiguration: DeclaredConfiguration {
    /// Character framing of the line: data bits, parity, stop bits (`8N1`).
    public struct Framing: Sendable, Equatable, CustomStringConvertible, SettingValue {
        public enum Parity: String, Sendable, Equatable, CaseIterable {
            case none, even, odd
            /// `N`, `E`, `O`.
            public var letter: Character {
                switch self {
                case .none: "N"
                case .even: "E"
                case .odd: "O"
                }
            }
        }

        public var dataBits: Int
        public var parity: Parity
        public var stopBits: Int

        public static let validDataBits = 5...8
        public static let validStopBits = 1...2

        public init(dataBits: Int = 8, parity: Parity = .none, stopBits: Int = 1) {
            self.dataBits = dataBits
            self.parity = parity
            self.stopBits = stopBits
        }

        /// Parses `8N1`, `7E1`, `8N2`, … (case-insensitive); nil when it is not of that form or out of range.
        public init?(_ text: String) {
            let chars = Array(text.uppercased())
            guard chars.count == 3, let d = chars[0].wholeNumberValue, let s = chars[2].wholeNumberValue,
                  let p = Parity.allCases.first(where: { $0.letter == chars[1] }),
                  Framing.validDataBits.contains(d), Framing.validStopBits.contains(s) else { return nil }
            self.init(dataBits: d, parity: p, stopBits: s)
        }

        public var description: String { "\(dataBits)\(parity.letter)\(stopBits)" }

        public static var settingType: String { "string" }
        public var settingText: String { description }
        public static func readSetting(from container: KeyedDecodingContainer<SettingKey>, forKey key: SettingKey) throws -> Framing {
            let text = try container.decode(String.self, forKey: key)
            guard let f = Framing(text) else {
                throw ConfigValueError(key: key.stringValue, "framing must be data bits (5-8), parity (N, E or O) and stop bits (1 or 2), e.g. 8N1; found \"\(text)\"")
            }
            return f
        }
    }

    /// The speeds accepted in config (those NMEA receivers use, 4800 to 921600 baud).
    public static let validBaudRates = [4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600]

    /// Serial device path (`/dev/ttyUSB0`, `/dev/serial/by-id/…`).
    @Setting("device", "Serial device of the receiver, e.g. /dev/ttyACM0 or a stable udev path /dev/serial/by-id/usb-u-blox_…-if00.", check: .notEmpty)
    public var device: String

    /// Line speed, one of `validBaudRates`.
    @Setting("baud", "Line speed: one of 4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600.",
             check: SettingCheck { validBaudRates.contains($0) ? nil : "must be one of \(validBaudRates.map(String.init).joined(separator: ", ")); found \($0)" })
    public var baud: Int = 9600

    @Setting("framing", "Data bits, parity (N/E/O) and stop bits in one, e.g. 8N1 or 7E1. Alternative to data_bits/parity/stop_bits.", default: "8N1")
    public var framingText: Framing? = nil

    @Setting("data_bits", "Data bits per character, 5 to 8 (instead of framing).", default: "8",
             check: SettingCheck { $0.map { Framing.validDataBits.contains($0) ? nil : "must be 5, 6, 7 or 8, found \($0)" } ?? nil })
    public var dataBits: Int? = nil

    @Setting("parity", "Parity: none, even or odd (instead of framing).", default: "none")
    public var parity: ParitySetting? = nil

    @Setting("stop_bits", "Stop bits, 1 or 2 (instead of framing).", default: "1",
             check: SettingCheck { $0.map { Framing.validStopBits.contains($0) ? nil : "must be 1 or 2, found \($0)" } ?? nil })
    public var stopBits: Int? = nil

    /// Strings written to the device after each open, each followed by CR LF.
    @Setting("init", "Commands written to the receiver after each open, each followed by CR LF (e.g. \"$PMTK220,200*2C\" for 5 Hz on MediaTek).",
             check: SettingCheck { list in
                 list.first { $0.utf8.contains { $0 == 0x0D || $0 == 0x0A } }.map { "commands must not contain CR or LF (CR LF is added): \"\($0)\"" }
             })
    public var initCommands: [String] = []

    /// Seconds connected without a complete sentence before `no_data` is reported.
    @Setting("no_data_timeout", "Seconds with the device open but no complete NMEA sentence before status no_data is reported.",
             check: .within(0.1...86_400, unit: "seconds"))
    public var noDataTimeout: Double = 5

    /// Cap of the reopen backoff, seconds (it starts at 0.1 s and doubles).
    @Setting("reconnect_max", "Cap in seconds of the reopen backoff, which starts at 0.1 s and doubles after each failed attempt; a device path that reappears is opened within 0.1 s.",
             check: .within(0.1...3600, unit: "seconds"))
    public var reconnectMax: Double = 2

    /// Accept sentences without `*hh` (old receivers).
    @Setting("accept_missing_checksum", "Accept sentences without a *hh checksum (some old receivers omit it).")
    public var acceptMissingChecksum: Bool = false

    /// Publish every valid sentence as received on `obs.nmea.<id>` (NMEA pass-through).
    @Setting("publish_sentences", "Also publish every valid sentence as received on obs.nmea.<id> (for gpsd clients watching with nmea: true through a gpsd-server sink, or loggers); about a hundred messages a second at 10 Hz.")
    public var publishSentences: Bool = false

    /// Where epochs without an RMC/ZDA date get their day.
    public enum DateSource: String, Sendable, Equatable, CaseIterable, SettingValue {
        /// From the receiver only: held up to `undated_hold` for its first RMC/ZDA, then dropped and counted.
        case receiver
        /// From the system clock when the receiver gives none (a GGA-only receiver).
        case system
    }

    @Setting("date", "Day of epochs the receiver does not date (no RMC/ZDA): receiver (wait for its date, up to undated_hold) or system (the system clock's UTC day, the nearest to the epoch's time across midnight).")
    public var date: DateSource = .receiver

    @Setting("undated_hold", "Seconds of the receiver's time that epochs without a date wait for its first RMC/ZDA date before they are dropped (counted, with a status event); 0 = drop at once.",
             check: .within(0...3600, unit: "seconds"))
    public var undatedHold: Double = 10

    public init() {}

    /// Character framing of the line: `framing`, or `data_bits`/`parity`/`stop_bits` on 8N1.
    public var framing: Framing {
        if let framingText { return framingText }
        return Framing(dataBits: dataBits ?? 8, parity: parity?.parity ?? .none, stopBits: stopBits ?? 1)
    }

    public func validate() throws {
        if framingText != nil, dataBits != nil || parity != nil || stopBits != nil {
            let which = [dataBits.map { _ in "data_bits" }, parity.map { _ in "parity" }, stopBits.map { _ in "stop_bits" }]
                .compactMap { $0 }.joined(separator: ", ")
            throw ConfigValueError(key: "framing", "give either framing or \(which), not both")
        }
    }

    /// `parity`: none, even or odd, or the letters N, E, O (any case).
    public struct ParitySetting: SettingValue, Equatable {
        public var parity: Framing.Parity
        public static var settingType: String { "none, even or odd" }
        public var settingText: String { parity.rawValue }
        public static func readSetting(from container: KeyedDecodingContainer<SettingKey>, forKey key: SettingKey) throws -> ParitySetting {
            let text = try container.decode(String.self, forKey: key)
            let p = text.lowercased()
            guard let parity = Framing.Parity(rawValue: p) ?? Framing.Parity.allCases.first(where: { String($0.letter).lowercased() == p }) else {
                throw ConfigValueError(key: key.stringValue, "parity must be none, even or odd, found \"\(text)\"")
            }
            return ParitySetting(parity: parity)
        }
    }
}

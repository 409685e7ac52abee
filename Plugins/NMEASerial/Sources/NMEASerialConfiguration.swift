import LocusCore

/// Options of the `nmea-serial` source.
public struct NMEASerialConfiguration: PluginConfiguration {
    /// Character framing of the line: data bits, parity, stop bits (`8N1`).
    public struct Framing: Sendable, Equatable, CustomStringConvertible {
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
    }

    /// Serial device path (`/dev/ttyUSB0`, `/dev/serial/by-id/…`).
    public var device: String
    /// Line speed, one of `validBaudRates`.
    public var baud: Int
    public var framing: Framing
    /// Strings written to the device after each open, each followed by CR LF.
    public var initCommands: [String]
    /// Seconds connected without a complete sentence before `no_data` is reported.
    public var noDataTimeout: Double
    /// Cap of the reopen backoff, seconds (it starts at 0.1 s and doubles).
    public var reconnectMax: Double
    /// Accept sentences without `*hh` (old receivers).
    public var acceptMissingChecksum: Bool

    /// The speeds accepted in config (those NMEA receivers use, 4800 to 921600 baud).
    public static let validBaudRates = [4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600]

    public static let keys: [ConfigKey] = [
        ConfigKey("device", "string", default: nil, "Serial device of the receiver, e.g. /dev/ttyACM0 or a stable udev path /dev/serial/by-id/usb-u-blox_…-if00."),
        ConfigKey("baud", "integer", default: "9600", "Line speed: one of 4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600."),
        ConfigKey("framing", "string", default: "8N1", "Data bits, parity (N/E/O) and stop bits in one, e.g. 8N1 or 7E1. Alternative to data_bits/parity/stop_bits."),
        ConfigKey("data_bits", "integer", default: "8", "Data bits per character, 5 to 8 (instead of framing)."),
        ConfigKey("parity", "string", default: "none", "Parity: none, even or odd (instead of framing)."),
        ConfigKey("stop_bits", "integer", default: "1", "Stop bits, 1 or 2 (instead of framing)."),
        ConfigKey("init", "list of strings", default: "[]", "Commands written to the receiver after each open, each followed by CR LF (e.g. \"$PMTK220,200*2C\" for 5 Hz on MediaTek)."),
        ConfigKey("no_data_timeout", "number", default: "5", "Seconds with the device open but no complete NMEA sentence before status no_data is reported."),
        ConfigKey("reconnect_max", "number", default: "2", "Cap in seconds of the reopen backoff, which starts at 0.1 s and doubles after each failed attempt; a device path that reappears is opened within 0.1 s."),
        ConfigKey("accept_missing_checksum", "boolean", default: "false", "Accept sentences without a *hh checksum (some old receivers omit it)."),
    ]

    enum CodingKeys: String, CodingKey {
        case device, baud, framing, data_bits, parity, stop_bits, `init`, no_data_timeout, reconnect_max, accept_missing_checksum
    }

    public init(device: String, baud: Int = 9600, framing: Framing = Framing(), initCommands: [String] = [],
                noDataTimeout: Double = 5, reconnectMax: Double = 2, acceptMissingChecksum: Bool = false) {
        self.device = device
        self.baud = baud
        self.framing = framing
        self.initCommands = initCommands
        self.noDataTimeout = noDataTimeout
        self.reconnectMax = reconnectMax
        self.acceptMissingChecksum = acceptMissingChecksum
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        device = try c.decode(String.self, forKey: .device)
        guard !device.isEmpty else { throw ConfigValueError(key: "device", "device must not be empty") }
        baud = try c.decodeIfPresent(Int.self, forKey: .baud) ?? 9600
        try NMEASerialConfiguration.validate(baud: baud)

        let text = try c.decodeIfPresent(String.self, forKey: .framing)
        let dataBits = try c.decodeIfPresent(Int.self, forKey: .data_bits)
        let parityText = try c.decodeIfPresent(String.self, forKey: .parity)
        let stopBits = try c.decodeIfPresent(Int.self, forKey: .stop_bits)
        if let text {
            if dataBits != nil || parityText != nil || stopBits != nil {
                let which = [dataBits.map { _ in "data_bits" }, parityText.map { _ in "parity" }, stopBits.map { _ in "stop_bits" }]
                    .compactMap { $0 }.joined(separator: ", ")
                throw ConfigValueError(key: "framing", "give either framing or \(which), not both")
            }
            guard let f = Framing(text) else {
                throw ConfigValueError(key: "framing", "framing must be data bits (5-8), parity (N, E or O) and stop bits (1 or 2), e.g. 8N1; found \"\(text)\"")
            }
            framing = f
        } else {
            var f = Framing()
            if let dataBits {
                guard Framing.validDataBits.contains(dataBits) else {
                    throw ConfigValueError(key: "data_bits", "data_bits must be 5, 6, 7 or 8, found \(dataBits)")
                }
                f.dataBits = dataBits
            }
            if let parityText {
                let p = parityText.lowercased()
                guard let parity = Framing.Parity(rawValue: p)
                        ?? Framing.Parity.allCases.first(where: { String($0.letter).lowercased() == p }) else {
                    throw ConfigValueError(key: "parity", "parity must be none, even or odd, found \"\(parityText)\"")
                }
                f.parity = parity
            }
            if let stopBits {
                guard Framing.validStopBits.contains(stopBits) else {
                    throw ConfigValueError(key: "stop_bits", "stop_bits must be 1 or 2, found \(stopBits)")
                }
                f.stopBits = stopBits
            }
            framing = f
        }

        initCommands = try c.decodeIfPresent([String].self, forKey: .`init`) ?? []
        for cmd in initCommands where cmd.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A }) {
            throw ConfigValueError(key: "init", "init commands must not contain CR or LF (CR LF is added): \"\(cmd)\"")
        }
        noDataTimeout = try c.decodeIfPresent(Double.self, forKey: .no_data_timeout) ?? 5
        guard noDataTimeout.isFinite, noDataTimeout >= 0.1, noDataTimeout <= 86_400 else {
            throw ConfigValueError(key: "no_data_timeout", "no_data_timeout must be between 0.1 and 86400 seconds, found \(noDataTimeout)")
        }
        reconnectMax = try c.decodeIfPresent(Double.self, forKey: .reconnect_max) ?? 2
        guard reconnectMax.isFinite, reconnectMax >= 0.1, reconnectMax <= 3600 else {
            throw ConfigValueError(key: "reconnect_max", "reconnect_max must be between 0.1 and 3600 seconds, found \(reconnectMax)")
        }
        acceptMissingChecksum = try c.decodeIfPresent(Bool.self, forKey: .accept_missing_checksum) ?? false
    }

    /// Throws unless `baud` is one of `validBaudRates`.
    public static func validate(baud: Int) throws {
        guard validBaudRates.contains(baud) else {
            let list = validBaudRates.map(String.init).joined(separator: ", ")
            throw ConfigValueError(key: "baud", "baud must be one of \(list); found \(baud)")
        }
    }
}

/// A request a gpsd client sends (gpsd_json(5), "COMMANDS"), as gpsd 3.22 takes them:
/// `?VERSION;`, `?WATCH;` / `?WATCH={…};`, `?POLL;`, `?DEVICES;`, `?DEVICE;` / `?DEVICE={…};`.
public enum GpsdRequest: Equatable, Sendable {
    case version
    /// `?WATCH;` asks for the client's watch policy; `?WATCH={…}` changes it.
    case watch(GpsdWatchRequest?)
    case poll
    case devices
    /// `?DEVICE;` asks for the (first) device; `?DEVICE={…}` names one and may try to change it.
    case device(GpsdDeviceRequest?)
}

/// The members of a `?WATCH={…}` object; nil where the client left one out (it keeps its value).
public struct GpsdWatchRequest: Equatable, Sendable {
    public var enable: Bool?
    public var json: Bool?
    public var nmea: Bool?
    /// 0 (none), 1 (raw bytes as hex for binary devices, NMEA as is) or 2 (raw bytes).
    public var raw: Int?
    public var scaled: Bool?
    public var timing: Bool?
    public var split24: Bool?
    public var pps: Bool?
    /// Only this device's reports (its path).
    public var device: String?

    public init(enable: Bool? = nil, json: Bool? = nil, nmea: Bool? = nil, raw: Int? = nil, scaled: Bool? = nil,
                timing: Bool? = nil, split24: Bool? = nil, pps: Bool? = nil, device: String? = nil) {
        self.enable = enable
        self.json = json
        self.nmea = nmea
        self.raw = raw
        self.scaled = scaled
        self.timing = timing
        self.split24 = split24
        self.pps = pps
        self.device = device
    }
}

/// A `?DEVICE={…}` object: the device it names and the settings it asks to change.
public struct GpsdDeviceRequest: Equatable, Sendable {
    public var path: String?
    /// Names of the settings the client asked to change (`bps`, `native`, `cycle`, …), sorted.
    public var changes: [String]

    public init(path: String?, changes: [String]) {
        self.path = path
        self.changes = changes
    }
}

/// Why a request was not taken. `message` is what gpsd would put in its ERROR report.
public enum GpsdRequestProblem: Equatable, Sendable, Error {
    /// Not one of the commands (the text as received, cut to 64 bytes).
    case unrecognized(String)
    /// The command's JSON argument does not read (`WATCH`, `DEVICE`) or has a wrong member.
    case invalidArgument(command: String, reason: String)
    /// More than the parser's `maxRequestBytes` arrived without a complete request.
    case tooLong(limit: Int)

    public var message: String {
        switch self {
        case .unrecognized(let text): "Unrecognized request '\(text)'"
        case .invalidArgument(let command, let reason): "Invalid \(command): \(reason)"
        case .tooLong(let limit): "Request too long: more than \(limit) bytes without a complete request"
        }
    }
}

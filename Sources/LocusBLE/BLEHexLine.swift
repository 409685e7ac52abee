import LocusCore

/// One line of the `locus decode` BLE input format:
///
///     [TIME] [ADDRESS[/TYPE] RSSI] [ad:|hci:]HEX
///
/// - `TIME`: ISO-8601 UTC (`2024-05-17T08:00:00.250Z`) or Unix seconds (`1715932800.25`).
/// - `ADDRESS`: `AA:BB:CC:DD:EE:FF`, optionally `/public` or `/random`; `RSSI`: dBm. Both only
///   for AD payloads (HCI events carry their own).
/// - `HEX`: the bytes, no separators, optional `0x`. An `ad:` or `hci:` prefix says what they
///   are; without one, bytes with `3e` first or second (an LE Meta event with or without its
///   H4 byte) that parse as an LE advertising report event are HCI, anything else is AD.
///
/// The last field is always the hex, so which optional fields are present follows from the
/// field count: 2 → TIME HEX, 3 → ADDRESS RSSI HEX, 4 → TIME ADDRESS RSSI HEX. Blank lines and
/// lines starting with `#` are not lines (`parse` returns nil without an error).
public struct BLEHexLine: Sendable, Equatable {
    public enum Payload: Sendable, Equatable {
        /// AD structures.
        case advertisingData([UInt8])
        /// A parsed HCI LE advertising report event.
        case hciEvent(HCIEventParser.Event)
    }

    /// Why a line was refused.
    public enum LineError: Error, Sendable, Equatable, CustomStringConvertible {
        /// More than four fields.
        case tooManyFields
        /// The time field is neither ISO-8601 nor Unix seconds.
        case badTime(String)
        /// The address is not `AA:BB:CC:DD:EE:FF[/public|/random]`.
        case badAddress(String)
        case badRSSI(String)
        /// Odd length or a non-hex digit.
        case badHex
        /// `hci:` bytes that are not an LE advertising report event.
        case badHCI(HCIEventParser.ParseError)
        /// An address and RSSI given for an HCI event, which has its own.
        case addressWithHCI

        public var description: String {
            switch self {
            case .tooManyFields: return "more than 4 fields (expected [TIME] [ADDRESS RSSI] HEX)"
            case .badTime(let t): return "'\(t)' is not an ISO-8601 time or Unix seconds"
            case .badAddress(let a): return "'\(a)' is not an address AA:BB:CC:DD:EE:FF[/public|/random]"
            case .badRSSI(let r): return "'\(r)' is not an RSSI in dBm"
            case .badHex: return "the payload is not hex"
            case .badHCI(let e): return "not an HCI LE advertising report event (\(e))"
            case .addressWithHCI: return "an HCI event carries its own address and RSSI"
            }
        }
    }

    public var time: EventTime?
    public var address: BLEAddress?
    /// `public`, `random` or `unknown` (no `/TYPE` given).
    public var addressType: String
    public var rssi: Int?
    public var payload: Payload

    /// The parsed line; nil for a blank or comment line.
    public static func parse(_ line: some StringProtocol) -> Result<BLEHexLine, LineError>? {
        let fields = Substring(line).split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard let first = fields.first, !first.hasPrefix("#"), let last = fields.last else { return nil }
        guard fields.count <= 4 else { return .failure(.tooManyFields) }
        var out = BLEHexLine(time: nil, address: nil, addressType: "unknown", rssi: nil, payload: .advertisingData([]))
        var rest = fields.dropLast()
        if rest.count == 1 || rest.count == 3 {
            let t = rest.removeFirst()
            guard let time = parseTime(t) else { return .failure(.badTime(String(t))) }
            out.time = time
        }
        if rest.count == 2 {
            let a = rest[rest.startIndex], r = rest[rest.startIndex + 1]
            let parts = a.split(separator: "/", maxSplits: 1)
            guard let addr = BLEAddress(parts[0]) else { return .failure(.badAddress(String(a))) }
            if parts.count == 2 {
                guard parts[1] == "public" || parts[1] == "random" else { return .failure(.badAddress(String(a))) }
                out.addressType = String(parts[1])
            }
            guard let rssi = Int(r), rssi >= -128, rssi <= 127 else { return .failure(.badRSSI(String(r))) }
            out.address = addr
            out.rssi = rssi
        }
        var hex = Substring(last)
        var kind: Substring?
        if let colon = hex.firstIndex(of: ":"), hex[..<colon] == "ad" || hex[..<colon] == "hci" {
            kind = hex[..<colon]; hex = hex[hex.index(after: colon)...]
        }
        if hex.hasPrefix("0x") || hex.hasPrefix("0X") { hex = hex.dropFirst(2) }
        guard let bytes = Hex.bytes(hex) else { return .failure(.badHex) }
        // `3e` (LE Meta event) first or second: with, without or with a wrong H4 byte. AD type
        // 0x3e is unassigned, so AD structures rarely look like this, and those that do fail
        // to parse as an event and are read as AD.
        let looksHCI = bytes.count >= 3 && (bytes[0] == 0x3E || bytes[1] == 0x3E)
        if kind == "hci" || (kind == nil && looksHCI && out.address == nil) {
            switch HCIEventParser.parse(bytes) {
            case .success(let e):
                if out.address != nil { return .failure(.addressWithHCI) }
                out.payload = .hciEvent(e)
                return .success(out)
            case .failure(let e):
                if kind == "hci" { return .failure(.badHCI(e)) }
            }
        }
        out.payload = .advertisingData(bytes)
        return .success(out)
    }

    /// True if the first line that is not blank or a comment in `prefix` is a valid BLE line
    /// (how `locus decode` recognises this format).
    public static func detect(_ prefix: some Collection<UInt8>) -> Bool {
        for line in String(decoding: prefix, as: UTF8.self).split(whereSeparator: \.isNewline) {
            guard let r = parse(line) else { continue }
            if case .success = r { return true }
            return false
        }
        return false
    }

    /// ISO-8601 (must contain `T`) or Unix seconds with an optional fraction.
    static func parseTime(_ t: Substring) -> EventTime? {
        if t.contains("T") { return EventTime(iso8601: String(t)) }
        guard !t.isEmpty, t.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let s = Double(t) else { return nil }
        return EventTime(checkedSeconds: s)
    }
}

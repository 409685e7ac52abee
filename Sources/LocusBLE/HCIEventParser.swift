/// Reads HCI LE Advertising Report events: H4 packets (`04 3e LL …`), bare events (`3e LL …`)
/// and report bodies without any header (`evt_type addr_type addr[6] len data rssi`).
///
/// Several reports in one legacy event are read one after the other, as Linux does
/// (`hci_le_adv_report_evt`), rather than as the parameter arrays the Core Specification draws;
/// controllers send one report per event in practice, where both readings agree.
///
/// Leniency (README, "HCI input"): the parameter-length byte and a wrong H4 type byte are not
/// trusted, because captures in the wild get them wrong (`beacontools-hci-01`,
/// `winbeacon-hci-01`); the report bodies must be consistent. What was overlooked is reported
/// in `Event.quirks`, so a caller can count it.
public enum HCIEventParser {
    /// HCI event code of LE Meta events.
    public static let leMetaEvent: UInt8 = 0x3E
    /// LE Advertising Report.
    public static let legacyReportSubevent: UInt8 = 0x02
    /// LE Extended Advertising Report.
    public static let extendedReportSubevent: UInt8 = 0x0D

    /// Irregularities passed over while reading an event.
    public struct Quirks: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// The byte before the event code was not the H4 event indicator 0x04.
        public static let wrongH4Type = Quirks(rawValue: 1)
        /// The parameter-length byte disagreed with the bytes present.
        public static let lengthMismatch = Quirks(rawValue: 2)
        /// Bytes were left over after the last report.
        public static let trailingBytes = Quirks(rawValue: 4)
    }

    /// One parsed event.
    public struct Event: Sendable, Equatable {
        /// 0x02 or 0x0D.
        public var subevent: UInt8
        public var reports: [HCIAdvertisingReport]
        public var quirks: Quirks
    }

    /// Why an input is not an advertising report event.
    public enum ParseError: Error, Sendable, Equatable {
        /// Not an LE Meta event (with or without an H4 byte).
        case notLEMetaEvent
        /// An LE Meta event of another kind (connection complete and the like).
        case otherSubevent(UInt8)
        /// `num_reports` was 0.
        case noReports
        /// The reports need more bytes than there are.
        case truncated
    }

    /// Parses an event with or without its H4 type byte.
    public static func parse(_ bytes: [UInt8]) -> Result<Event, ParseError> {
        let n = bytes.count
        var quirks: Quirks = []
        let header: Int
        if n >= 3, bytes[0] == leMetaEvent, isReportSubevent(bytes[2]) {
            header = 0
        } else if n >= 2, bytes[0] == 0x04, bytes[1] == leMetaEvent {
            header = 1
        } else if n >= 4, bytes[1] == leMetaEvent, isReportSubevent(bytes[3]) {
            header = 1
            quirks.insert(.wrongH4Type)
        } else if n >= 1, bytes[0] == leMetaEvent {
            header = 0
        } else {
            return .failure(.notLEMetaEvent)
        }
        guard n >= header + 3 else { return .failure(.truncated) }
        let declared = Int(bytes[header + 1])
        let params = header + 2
        if declared != n - params { quirks.insert(.lengthMismatch) }
        let sub = bytes[params]
        guard isReportSubevent(sub) else { return .failure(.otherSubevent(sub)) }
        return reports(bytes, from: params + 1, extended: sub == extendedReportSubevent).map { reports, end in
            if end < n { quirks.insert(.trailingBytes) }
            return Event(subevent: sub, reports: reports, quirks: quirks)
        }
    }

    /// Parses one legacy report body with no event header (`evt_type addr_type addr[6] len data rssi`).
    public static func reportBody(_ bytes: [UInt8]) -> Result<HCIAdvertisingReport, ParseError> {
        bytes.withUnsafeBufferPointer { p in
            var i = 0
            guard let r = legacyReport(p, bytes, &i) else { return .failure(.truncated) }
            return .success(r)
        }
    }

    @inline(__always) static func isReportSubevent(_ b: UInt8) -> Bool { b == legacyReportSubevent || b == extendedReportSubevent }

    /// The reports after the subevent byte, and where they end.
    static func reports(_ bytes: [UInt8], from start: Int, extended: Bool) -> Result<([HCIAdvertisingReport], Int), ParseError> {
        bytes.withUnsafeBufferPointer { p in
            guard start < p.count else { return .failure(.truncated) }
            let count = Int(p[start])
            guard count > 0 else { return .failure(.noReports) }
            var out: [HCIAdvertisingReport] = []
            out.reserveCapacity(count)
            var i = start + 1
            for _ in 0..<count {
                guard let r = extended ? extendedReport(p, bytes, &i) : legacyReport(p, bytes, &i) else { return .failure(.truncated) }
                out.append(r)
            }
            return .success((out, i))
        }
    }

    /// `evt_type(1) addr_type(1) addr(6) len(1) data(len) rssi(1)`.
    static func legacyReport(_ p: UnsafeBufferPointer<UInt8>, _ bytes: [UInt8], _ i: inout Int) -> HCIAdvertisingReport? {
        guard i + 10 <= p.count else { return nil }
        let len = Int(p[i + 8])
        guard i + 10 + len <= p.count else { return nil }
        let rssi = Int8(bitPattern: p[i + 9 + len])
        let r = HCIAdvertisingReport(eventType: UInt16(p[i]), isExtended: false, addressType: p[i + 1],
                                     address: BLEAddress.read(p, at: i + 2), rssi: rssi == 127 ? nil : rssi,
                                     data: bytes[(i + 9)..<(i + 9 + len)])
        i += 10 + len
        return r
    }

    /// `evt_type(2) addr_type(1) addr(6) primary_phy(1) secondary_phy(1) sid(1) tx_power(1)
    /// rssi(1) periodic_interval(2) direct_addr_type(1) direct_addr(6) len(1) data(len)`.
    static func extendedReport(_ p: UnsafeBufferPointer<UInt8>, _ bytes: [UInt8], _ i: inout Int) -> HCIAdvertisingReport? {
        guard i + 24 <= p.count else { return nil }
        let len = Int(p[i + 23])
        guard i + 24 + len <= p.count else { return nil }
        let tx = Int8(bitPattern: p[i + 12]), rssi = Int8(bitPattern: p[i + 13])
        let r = HCIAdvertisingReport(eventType: UInt16(p[i]) | UInt16(p[i + 1]) << 8, isExtended: true, addressType: p[i + 2],
                                     address: BLEAddress.read(p, at: i + 3), rssi: rssi == 127 ? nil : rssi,
                                     txPower: tx == 127 ? nil : tx, data: bytes[(i + 24)..<(i + 24 + len)])
        i += 24 + len
        return r
    }
}

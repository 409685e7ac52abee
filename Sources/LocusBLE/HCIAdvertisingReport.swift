/// One advertisement from an HCI LE Advertising Report (legacy, subevent 0x02) or LE Extended
/// Advertising Report (subevent 0x0D) event (Core Specification 5.x, Vol 4, Part E, 7.7.65.2
/// and 7.7.65.13).
public struct HCIAdvertisingReport: Sendable, Equatable {
    /// Legacy: 0 ADV_IND, 1 ADV_DIRECT_IND, 2 ADV_SCAN_IND, 3 ADV_NONCONN_IND, 4 SCAN_RSP.
    /// Extended: the 16-bit bit field (bit 0 connectable, 1 scannable, 2 directed, 3 scan
    /// response, 4 legacy PDU, 5–6 data status).
    public var eventType: UInt16
    /// True for an extended report.
    public var isExtended: Bool
    /// As sent: 0 public, 1 random, 2 public identity, 3 random static identity (resolved from
    /// an RPA), 0xFF anonymous (extended only); other values are invalid but kept.
    public var addressType: UInt8
    public var address: BLEAddress
    /// dBm; nil when the controller says 0x7F ("not available", extended reports; a legacy
    /// report's 127 is also out of the spec's −127…20 range).
    public var rssi: Int8?
    /// Extended reports only: the advertiser's TX power, dBm; nil for 0x7F (not available).
    public var txPower: Int8?
    /// The advertising data (AD structures).
    public var data: ArraySlice<UInt8>

    public init(eventType: UInt16, isExtended: Bool, addressType: UInt8, address: BLEAddress, rssi: Int8?,
                txPower: Int8? = nil, data: ArraySlice<UInt8>) {
        self.eventType = eventType; self.isExtended = isExtended; self.addressType = addressType; self.address = address
        self.rssi = rssi; self.txPower = txPower; self.data = data
    }

    /// `public`, `random` or `unknown`, as `obs.ble` writes it: identity addresses resolved
    /// from an RPA keep their kind (2 → public, 3 → random).
    public var addressKind: String {
        switch addressType {
        case 0, 2: return "public"
        case 1, 3: return "random"
        default: return "unknown"
        }
    }

    /// The legacy PDU name (`ADV_IND`…), or for extended reports the legacy PDU it stands for
    /// when bit 4 is set; nil otherwise.
    public var legacyPDUName: String? {
        if isExtended {
            guard eventType & 0x10 != 0 else { return nil }
            switch eventType & 0x0F {
            case 0x03: return "ADV_IND"
            case 0x05: return "ADV_DIRECT_IND"
            case 0x02: return "ADV_SCAN_IND"
            case 0x00: return "ADV_NONCONN_IND"
            case 0x0B, 0x0A: return "SCAN_RSP"
            default: return nil
            }
        }
        switch eventType {
        case 0: return "ADV_IND"
        case 1: return "ADV_DIRECT_IND"
        case 2: return "ADV_SCAN_IND"
        case 3: return "ADV_NONCONN_IND"
        case 4: return "SCAN_RSP"
        default: return nil
        }
    }
}

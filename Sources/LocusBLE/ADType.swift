/// AD type codes this module interprets (Bluetooth Assigned Numbers, section 2.3 "Common Data
/// Types"; layouts in the Core Specification Supplement, part A).
public enum ADType {
    public static let flags: UInt8 = 0x01
    public static let incompleteUUID16: UInt8 = 0x02
    public static let completeUUID16: UInt8 = 0x03
    public static let incompleteUUID32: UInt8 = 0x04
    public static let completeUUID32: UInt8 = 0x05
    public static let incompleteUUID128: UInt8 = 0x06
    public static let completeUUID128: UInt8 = 0x07
    public static let shortenedLocalName: UInt8 = 0x08
    public static let completeLocalName: UInt8 = 0x09
    public static let txPowerLevel: UInt8 = 0x0A
    public static let serviceData16: UInt8 = 0x16
    public static let serviceData32: UInt8 = 0x20
    public static let serviceData128: UInt8 = 0x21
    public static let manufacturerSpecific: UInt8 = 0xFF

    /// Width in bytes of the UUIDs in a service-UUID list or service-data structure of `type`; nil for other types.
    @inline(__always) public static func uuidWidth(_ type: UInt8) -> Int? {
        switch type {
        case 0x02, 0x03, 0x16: return 2
        case 0x04, 0x05, 0x20: return 4
        case 0x06, 0x07, 0x21: return 16
        default: return nil
        }
    }
}

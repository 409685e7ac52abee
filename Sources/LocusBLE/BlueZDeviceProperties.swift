import LocusCore

/// The advertisement-related properties BlueZ keeps on an `org.bluez.Device1` object, as a
/// source reads them from `InterfacesAdded`, `GetManagedObjects` and `PropertiesChanged`.
///
/// BlueZ sends only what changed, so every field is optional and `merge` folds a change into the
/// last known state. `advertisement(source:)` then gives the `obs.ble` observation.
public struct BlueZDeviceProperties: Sendable, Equatable {
    /// `AA:BB:CC:DD:EE:FF`.
    public var address: String?
    /// BlueZ's `AddressType`: `public` or `random`.
    public var addressType: String?
    public var rssi: Int?
    public var txPower: Int?
    public var name: String?
    /// `UUIDs`: 128-bit service UUIDs in BlueZ's text form.
    public var uuids: [String]?
    /// `ManufacturerData`: company id → bytes after it.
    public var manufacturerData: [UInt16: [UInt8]]?
    /// `ServiceData`: 128-bit service UUID text → bytes.
    public var serviceData: [String: [UInt8]]?

    public init(address: String? = nil, addressType: String? = nil, rssi: Int? = nil, txPower: Int? = nil, name: String? = nil,
                uuids: [String]? = nil, manufacturerData: [UInt16: [UInt8]]? = nil, serviceData: [String: [UInt8]]? = nil) {
        self.address = address; self.addressType = addressType; self.rssi = rssi; self.txPower = txPower; self.name = name
        self.uuids = uuids; self.manufacturerData = manufacturerData; self.serviceData = serviceData
    }

    /// Folds in a `PropertiesChanged`: fields present in `changed` replace ours; names in
    /// `invalidated` (BlueZ property names such as `RSSI`) are cleared.
    public mutating func merge(_ changed: BlueZDeviceProperties, invalidated: [String] = []) {
        if let v = changed.address { address = v }
        if let v = changed.addressType { addressType = v }
        if let v = changed.rssi { rssi = v }
        if let v = changed.txPower { txPower = v }
        if let v = changed.name { name = v }
        if let v = changed.uuids { uuids = v }
        if let v = changed.manufacturerData { manufacturerData = v }
        if let v = changed.serviceData { serviceData = v }
        for p in invalidated {
            switch p {
            case "RSSI": rssi = nil
            case "TxPower": txPower = nil
            case "ManufacturerData": manufacturerData = nil
            case "ServiceData": serviceData = nil
            case "Name": name = nil
            case "UUIDs": uuids = nil
            default: break
            }
        }
    }

    /// The observation for the current state, or nil while the address or RSSI is unknown (BlueZ
    /// drops RSSI for devices that are cached but not currently heard).
    public func advertisement(source: String) -> BLEAdvertisement? {
        guard let address, let rssi else { return nil }
        let mfr = (manufacturerData ?? [:]).sorted { $0.key < $1.key }
            .map { BLEAdvertisement.ManufacturerData(companyID: Int($0.key), data: Hex.string($0.value)) }
        let svc = (serviceData ?? [:]).sorted { $0.key < $1.key }
            .map { BLEAdvertisement.ServiceData(uuid: ServiceUUID.shortForm($0.key), data: Hex.string($0.value)) }
        let addressKind = addressType == "public" || addressType == "random" ? addressType! : "unknown"
        return BLEAdvertisement(source: source, address: address.uppercased(), addressType: addressKind, rssi: rssi,
                                txPower: txPower, name: name, serviceUUIDs: (uuids ?? []).map(ServiceUUID.shortForm),
                                manufacturerData: mfr, serviceData: svc,
                                beacon: BeaconDecoder.beacon(manufacturerData: mfr, serviceData: svc))
    }
}

/// Service UUIDs on the wire: 16- and 32-bit UUIDs that sit on the Bluetooth base UUID are
/// written short (`feaa`), others in full, lower case.
public enum ServiceUUID {
    static let baseSuffix = "-0000-1000-8000-00805f9b34fb"

    public static func shortForm(_ uuid: String) -> String {
        let u = uuid.lowercased()
        guard u.count == 36, u.hasSuffix(baseSuffix) else { return u }
        let head = u.prefix(8)
        return head.hasPrefix("0000") ? String(head.dropFirst(4)) : String(head)
    }
}

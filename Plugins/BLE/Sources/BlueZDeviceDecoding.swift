import LocusBLE

/// Reads BlueZ `org.bluez.Device1` properties from the `a{sv}` dictionaries of
/// `GetManagedObjects`, `InterfacesAdded` and `PropertiesChanged`.
///
/// A property whose value has an unexpected type is left out and its name reported in
/// `malformed`, so one bad value never loses the rest of the update.
struct BlueZDeviceDecoding: Equatable {
    var properties = BlueZDeviceProperties()
    /// Names of properties present with a type BlueZ never sends.
    var malformed: [String] = []
    /// True when the dictionary carries something heard in an advertisement: an RSSI, TX power,
    /// manufacturer or service data (BlueZ sends `RSSI` alone for a repeated advertisement).
    var carriesAdvertisement = false

    init(_ dict: [String: DBusValue]) {
        var p = BlueZDeviceProperties()
        var bad: [String] = []
        var heard = false
        func value<T>(_ name: String, _ v: T?) -> T? {
            if v == nil { bad.append(name) }
            return v
        }
        // BlueZ sends RSSI and TxPower as int16; the range check keeps a bogus value out of the payload.
        func dBm(_ v: DBusValue) -> Int? { v.integer.flatMap { (-128...127).contains($0) ? $0 : nil } }
        for (name, v) in dict {
            switch name {
            case "Address": p.address = value(name, v.text)
            case "AddressType": p.addressType = value(name, v.text)
            case "Name": p.name = value(name, v.text)
            case "UUIDs": p.uuids = value(name, v.stringArray)
            case "RSSI":
                p.rssi = value(name, dBm(v))
                heard = heard || p.rssi != nil
            case "TxPower":
                p.txPower = value(name, dBm(v))
                heard = heard || p.txPower != nil
            case "ManufacturerData":
                p.manufacturerData = value(name, Self.manufacturerData(v))
                heard = heard || p.manufacturerData != nil
            case "ServiceData":
                p.serviceData = value(name, Self.serviceData(v))
                heard = heard || p.serviceData != nil
            default:
                break
            }
        }
        properties = p
        malformed = bad.sorted()
        carriesAdvertisement = heard
    }

    /// `a{qv}`, each variant an `ay`. An empty array of another element type is read as empty:
    /// python-dbusmock's BlueZ template declares its empty default that way.
    static func manufacturerData(_ v: DBusValue) -> [UInt16: [UInt8]]? {
        switch v.unwrapped {
        case .dict(let entries):
            var out: [UInt16: [UInt8]] = [:]
            for e in entries {
                guard case .uint16(let id) = e.key.unwrapped, let bytes = e.value.byteArray else { return nil }
                out[id] = bytes
            }
            return out
        case .array(let items) where items.isEmpty:
            return [:]
        default:
            return nil
        }
    }

    /// `a{sv}`, keys 128-bit UUID text, each variant an `ay`.
    static func serviceData(_ v: DBusValue) -> [String: [UInt8]]? {
        guard let dict = v.stringKeyedDictionary else { return nil }
        var out: [String: [UInt8]] = [:]
        for (uuid, value) in dict {
            guard let bytes = value.byteArray else { return nil }
            out[uuid] = bytes
        }
        return out
    }
}

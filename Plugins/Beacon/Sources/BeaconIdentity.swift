import LocusConditions
import LocusCore

/// The decoded identity of one beacon: what conditions match on. Never the MAC address — a
/// beacon that rotates a random address is one beacon as long as its frame says the same.
///
/// Only frames that carry a stable identity count: iBeacon (UUID, major, minor), AltBeacon (its
/// 20-byte id) and Eddystone-UID (namespace, instance). Eddystone-URL, -TLM and -EID frames have
/// none (EID rotates by design) and are ignored by the service.
public struct BeaconIdentity: Hashable, Sendable, Comparable {
    public enum Format: String, Sendable, Hashable {
        case iBeacon = "ibeacon"
        case altBeacon = "altbeacon"
        case eddystoneUID = "eddystone_uid"
    }

    public var format: Format
    /// iBeacon proximity UUID, lower-case 8-4-4-4-12.
    public var uuid: String?
    public var major: Int?
    public var minor: Int?
    /// AltBeacon id, lower-case hex (40 digits for a standard frame).
    public var beaconID: String?
    /// Eddystone-UID namespace (20 hex digits) and instance (12 hex digits), lower case.
    public var namespace: String?
    public var instance: String?

    public init(iBeacon uuid: String, major: Int, minor: Int) {
        format = .iBeacon
        self.uuid = uuid.lowercased()
        self.major = major
        self.minor = minor
    }

    public init(altBeacon id: String) {
        format = .altBeacon
        beaconID = id.lowercased()
    }

    public init(eddystoneNamespace namespace: String, instance: String) {
        format = .eddystoneUID
        self.namespace = namespace.lowercased()
        self.instance = instance.lowercased()
    }

    /// The identity of a decoded `obs.ble` beacon, or nil for frames without one (URL, TLM,
    /// EID) and for incomplete ones.
    public init?(_ b: BLEAdvertisement.Beacon) {
        switch b.format {
        case "ibeacon":
            guard let u = b.uuid, let major = b.major, let minor = b.minor else { return nil }
            self.init(iBeacon: u, major: major, minor: minor)
        case "altbeacon":
            guard let id = b.beaconID, !id.isEmpty else { return nil }
            self.init(altBeacon: id)
        case "eddystone_uid":
            guard let ns = b.namespace, let inst = b.instance else { return nil }
            self.init(eddystoneNamespace: ns, instance: inst)
        default:
            return nil
        }
    }

    /// Orders identities for events and lists: by format, then the identifying fields.
    public static func < (a: BeaconIdentity, b: BeaconIdentity) -> Bool {
        if a.format != b.format { return a.format.rawValue < b.format.rawValue }
        let ka = (a.uuid ?? a.beaconID ?? a.namespace ?? "", a.major ?? -1, a.minor ?? -1, a.instance ?? "")
        let kb = (b.uuid ?? b.beaconID ?? b.namespace ?? "", b.major ?? -1, b.minor ?? -1, b.instance ?? "")
        return ka < kb
    }

    /// An AltBeacon's standard id as `id1`/`id2`/`id3`; nil otherwise.
    public var altBeaconIdentifiers: AltBeaconIdentifiers? {
        guard format == .altBeacon, let beaconID else { return nil }
        return AltBeaconIdentifiers(beaconID: beaconID)
    }

    /// The identity an event's fields describe (the `build` of the identity in
    /// schemas/beacon.state.schema.json, for tools/payloadgen.py); throws at `reader` when the
    /// fields its format needs are missing.
    static func fromWire(format: Format, uuid: String?, major: Int?, minor: Int?, beaconID: String?, namespace: String?,
                         instance: String?, reader r: JSONReader) throws -> BeaconIdentity {
        switch format {
        case .iBeacon:
            guard let uuid, let major, let minor else { throw r.error("an ibeacon identity needs uuid, major and minor") }
            return BeaconIdentity(iBeacon: uuid, major: major, minor: minor)
        case .altBeacon:
            guard let beaconID else { throw r.error("an altbeacon identity needs beacon_id") }
            return BeaconIdentity(altBeacon: beaconID)
        case .eddystoneUID:
            guard let namespace, let instance else { throw r.error("an eddystone_uid identity needs namespace and instance") }
            return BeaconIdentity(eddystoneNamespace: namespace, instance: instance)
        }
    }

    var json: JSONValue {
        var o: [String: JSONValue] = ["format": .string(format.rawValue)]
        if let uuid { o["uuid"] = .string(uuid) }
        if let major { o["major"] = .number(Double(major)) }
        if let minor { o["minor"] = .number(Double(minor)) }
        if let beaconID { o["beacon_id"] = .string(beaconID) }
        if let ids = altBeaconIdentifiers {
            o["id1"] = .string(ids.id1)
            o["id2"] = .number(Double(ids.id2))
            o["id3"] = .number(Double(ids.id3))
        }
        if let namespace { o["namespace"] = .string(namespace) }
        if let instance { o["instance"] = .string(instance) }
        return .object(o)
    }

    init?(json: JSONValue) {
        func int(_ k: String) -> Int? { json[k]?.doubleValue.flatMap { Int(exactly: $0.rounded(.towardZero)) } }
        switch json["format"]?.stringValue {
        case "ibeacon":
            guard let u = json["uuid"]?.stringValue, let major = int("major"), let minor = int("minor") else { return nil }
            self.init(iBeacon: u, major: major, minor: minor)
        case "altbeacon":
            guard let id = json["beacon_id"]?.stringValue else { return nil }
            self.init(altBeacon: id)
        case "eddystone_uid":
            guard let ns = json["namespace"]?.stringValue, let inst = json["instance"]?.stringValue else { return nil }
            self.init(eddystoneNamespace: ns, instance: inst)
        default:
            return nil
        }
    }
}

/// As its JSON form (`json`): the runtime keeps identities in a beacon service's state.
extension BeaconIdentity: Codable {
    public init(from decoder: any Decoder) throws {
        guard let identity = BeaconIdentity(json: try JSONValue(from: decoder)) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a beacon identity"))
        }
        self = identity
    }

    public func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }
}

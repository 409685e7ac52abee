import LocusConditions
import LocusCore

/// Where a beacon condition was defined: config or runtime (`ConditionOrigin`; beacons have no file).
public typealias BeaconConditionOrigin = ConditionOrigin

/// A definition the service refuses, with the reason (for `locus check` and `locus ctl`).
public struct BeaconConditionError: Error, Sendable, CustomStringConvertible, Equatable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// One monitored beacon condition, like Core Location's `BeaconIdentityCondition`: which
/// identities satisfy it (with wildcards), what to report, and user properties echoed in events.
public struct BeaconCondition: Sendable, Equatable, MonitoredCondition {
    /// What identities satisfy the condition. Absent fields are wildcards.
    public enum Match: Sendable, Equatable {
        /// iBeacon proximity UUID, optionally narrowed to one major, and then one minor.
        case iBeacon(uuid: String, major: Int?, minor: Int?)
        /// AltBeacon ids that start with this hex prefix (1 to 20 bytes).
        case altBeacon(prefix: String)
        /// AltBeacon's standard id as `id1` (UUID), optionally one `id2`, and then one `id3`
        /// (the Android Beacon Library's form; the same wildcards as iBeacon's).
        case altBeaconIDs(id1: String, id2: Int?, id3: Int?)
        /// Eddystone-UID namespace, optionally one instance.
        case eddystone(namespace: String, instance: String?)

        public func matches(_ i: BeaconIdentity) -> Bool {
            switch self {
            case .iBeacon(let uuid, let major, let minor):
                return i.format == .iBeacon && i.uuid == uuid && (major == nil || i.major == major)
                    && (minor == nil || i.minor == minor)
            case .altBeacon(let prefix):
                return i.format == .altBeacon && (i.beaconID?.hasPrefix(prefix) ?? false)
            case .altBeaconIDs(let id1, let id2, let id3):
                guard let ids = i.altBeaconIdentifiers else { return false }
                return ids.id1 == id1 && (id2 == nil || ids.id2 == id2) && (id3 == nil || ids.id3 == id3)
            case .eddystone(let namespace, let instance):
                return i.format == .eddystoneUID && i.namespace == namespace && (instance == nil || i.instance == instance)
            }
        }

        /// True when one concrete identity is all that can match (no wildcard left).
        var isConcrete: Bool {
            switch self {
            case .iBeacon(_, let major, let minor): major != nil && minor != nil
            case .altBeacon(let prefix): prefix.utf8.count == 40
            case .altBeaconIDs(_, let id2, let id3): id2 != nil && id3 != nil
            case .eddystone(_, let instance): instance != nil
            }
        }
    }

    /// Lower-case topic segment: events go to `beacon.enter.<id>` and so on.
    public var id: String
    public var match: Match
    public var notifyOnEntry: Bool
    public var notifyOnExit: Bool
    /// Publish `beacon.range.<id>` every `range_interval` while satisfied.
    public var ranging: Bool
    public var properties: [String: JSONValue]
    public var origin: BeaconConditionOrigin
    /// Beacon conditions publish no dwell event (yet): the machine they share with regions
    /// (`ConditionRecording`) has one, configured by this.
    public var dwell: Double? { nil }

    /// Every key a definition may have, in config and `beacon add`.
    /// The keys of a condition, in the order the docs give them.
    static let configKeys = ["id", "uuid", "major", "minor", "altbeacon", "id1", "id2", "id3", "namespace", "instance",
                             "notify_on_entry", "notify_on_exit", "ranging", "properties"]
    static let keys = Set(configKeys)

    public init(id: String, match: Match, notifyOnEntry: Bool = true, notifyOnExit: Bool = true, ranging: Bool = false,
                properties: [String: JSONValue] = [:], origin: BeaconConditionOrigin) throws {
        guard Topic.isValidSegment(id) else {
            throw BeaconConditionError("id \"\(id)\" cannot be a topic segment: use lower-case letters, digits, _ and - (events go to beacon.enter.<id>)")
        }
        self.id = id
        self.match = match
        self.notifyOnEntry = notifyOnEntry
        self.notifyOnExit = notifyOnExit
        self.ranging = ranging
        self.properties = properties
        self.origin = origin
    }

    /// What identifies the match: a condition whose fingerprint changed (config edited) starts
    /// again from `unknown`, since its old state says nothing about other beacons.
    public var fingerprint: String { String(decoding: matchJSON.encoded(), as: UTF8.self) }

    var matchJSON: JSONValue {
        var o: [String: JSONValue] = [:]
        switch match {
        case .iBeacon(let uuid, let major, let minor):
            o["uuid"] = .string(uuid)
            if let major { o["major"] = .number(Double(major)) }
            if let minor { o["minor"] = .number(Double(minor)) }
        case .altBeacon(let prefix):
            o["altbeacon"] = .string(prefix)
        case .altBeaconIDs(let id1, let id2, let id3):
            o["id1"] = .string(id1)
            if let id2 { o["id2"] = .number(Double(id2)) }
            if let id3 { o["id3"] = .number(Double(id3)) }
        case .eddystone(let namespace, let instance):
            o["namespace"] = .string(namespace)
            if let instance { o["instance"] = .string(instance) }
        }
        return .object(o)
    }

    /// The definition as stored and as `beacon record` shows it.
    public var definition: JSONValue {
        guard case .object(var o) = matchJSON else { return .null }
        o["id"] = .string(id)
        o["notify_on_entry"] = .bool(notifyOnEntry)
        o["notify_on_exit"] = .bool(notifyOnExit)
        o["ranging"] = .bool(ranging)
        o["origin"] = .string(origin.rawValue)
        if !properties.isEmpty { o["properties"] = .object(properties) }
        return .object(o)
    }

    /// Reads a definition from config, the database or a control request. `origin` in the
    /// object (as `definition` writes it) is ignored: the caller says where it came from.
    public init(definition d: JSONValue, origin: BeaconConditionOrigin) throws {
        guard case .object(var o) = d else { throw BeaconConditionError("a beacon condition must be a mapping with id and uuid, altbeacon or namespace") }
        o.removeValue(forKey: "origin")
        guard let id = o["id"]?.stringValue else { throw BeaconConditionError("needs an \"id\" string") }
        if let unknown = o.keys.sorted().first(where: { !Self.keys.contains($0) }) {
            throw BeaconConditionError("condition \"\(id)\": unknown key '\(unknown)'; expected \(Self.keys.sorted().joined(separator: ", "))")
        }
        func fail(_ why: String) -> BeaconConditionError { BeaconConditionError("condition \"\(id)\": \(why)") }
        func bool(_ key: String, _ fallback: Bool) throws -> Bool {
            guard let v = o[key] else { return fallback }
            guard case .bool(let b) = v else { throw fail("\(key) must be true or false") }
            return b
        }
        func uint16(_ key: String) throws -> Int? {
            guard let v = o[key] else { return nil }
            guard let n = v.doubleValue, n == n.rounded(), n >= 0, n <= 65535 else { throw fail("\(key) must be a whole number from 0 to 65535") }
            return Int(n)
        }
        func hex(_ key: String, digits: ClosedRange<Int>) throws -> String? {
            guard let v = o[key] else { return nil }
            guard let s = v.stringValue else { throw fail("\(key) must be a hex string") }
            let h = s.lowercased().filter { $0 != "-" }
            guard h.utf8.count % 2 == 0, digits.contains(h.utf8.count), h.utf8.allSatisfy(Self.isHexDigit) else {
                throw fail(digits.lowerBound == digits.upperBound
                    ? "\(key) must be \(digits.lowerBound) hex digits, found '\(s)'"
                    : "\(key) must be \(digits.lowerBound) to \(digits.upperBound) hex digits (whole bytes), found '\(s)'")
            }
            return h
        }
        let kinds = ["uuid", "altbeacon", "id1", "namespace"].filter { o[$0] != nil }
        guard kinds.count == 1 else {
            throw fail(kinds.isEmpty ? "needs one of uuid (iBeacon), altbeacon (AltBeacon id prefix, hex), id1 (AltBeacon id1, a UUID) or namespace (Eddystone-UID)"
                                     : "give only one of uuid, altbeacon, id1 and namespace, found \(kinds.joined(separator: " and "))")
        }
        for k in ["id2", "id3"] where o[k] != nil && kinds[0] != "id1" { throw fail("\(k) goes with id1 (AltBeacon)") }
        let match: Match
        switch kinds[0] {
        case "uuid":
            if o["instance"] != nil { throw fail("instance goes with namespace (Eddystone), not uuid") }
            guard let h = try hex("uuid", digits: 32...32) else { throw fail("uuid missing") }
            let major = try uint16("major"), minor = try uint16("minor")
            if minor != nil && major == nil { throw fail("minor needs major (a wildcard major with a fixed minor is not a beacon region)") }
            match = .iBeacon(uuid: Self.dashed(h), major: major, minor: minor)
        case "altbeacon":
            for k in ["major", "minor", "instance"] where o[k] != nil { throw fail("\(k) does not go with altbeacon; give a longer id prefix instead") }
            match = .altBeacon(prefix: try hex("altbeacon", digits: 2...40)!)
        case "id1":
            for k in ["major", "minor", "instance"] where o[k] != nil { throw fail("\(k) does not go with id1; AltBeacon's are id2 and id3") }
            guard let h = try hex("id1", digits: 32...32) else { throw fail("id1 missing") }
            let id2 = try uint16("id2"), id3 = try uint16("id3")
            if id3 != nil && id2 == nil { throw fail("id3 needs id2 (as minor needs major)") }
            match = .altBeaconIDs(id1: Self.dashed(h), id2: id2, id3: id3)
        default:
            for k in ["major", "minor"] where o[k] != nil { throw fail("\(k) goes with uuid (iBeacon), not namespace") }
            match = .eddystone(namespace: try hex("namespace", digits: 20...20)!, instance: try hex("instance", digits: 12...12))
        }
        var properties: [String: JSONValue] = [:]
        if let p = o["properties"] {
            guard case .object(let po) = p else { throw fail("properties must be a mapping") }
            properties = po
        }
        try self.init(id: id, match: match, notifyOnEntry: try bool("notify_on_entry", true),
                      notifyOnExit: try bool("notify_on_exit", true), ranging: try bool("ranging", false),
                      properties: properties, origin: origin)
    }

    static func isHexDigit(_ c: UInt8) -> Bool { (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) }

    /// 32 hex digits as 8-4-4-4-12, the form decoded iBeacon UUIDs take.
    static func dashed(_ h: String) -> String { AltBeaconIdentifiers.dashedUUID(h) }
}

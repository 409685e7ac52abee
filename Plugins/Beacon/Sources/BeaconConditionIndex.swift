import LocusConditions
/// Finds the conditions an identity satisfies without testing every condition: iBeacon
/// conditions by UUID, Eddystone ones by namespace, AltBeacon prefixes by their length; and a
/// cache of the answer per identity, since a few hundred beacons repeat many times a second.
struct BeaconConditionIndex {
    private var byUUID: [String: [(id: String, match: BeaconCondition.Match)]] = [:]
    private var byNamespace: [String: [(id: String, match: BeaconCondition.Match)]] = [:]
    /// AltBeacon conditions given as id1/id2/id3, by id1.
    private var byID1: [String: [(id: String, match: BeaconCondition.Match)]] = [:]
    /// Prefix length (hex digits) → prefix → condition ids.
    private var altBeacon: [Int: [String: [String]]] = [:]
    private var cache: [BeaconIdentity: [String]] = [:]
    /// Identities kept in the cache at most (random ids must not grow it without bound).
    private static let cacheLimit = 20_000

    mutating func insert(_ c: BeaconCondition) {
        switch c.match {
        case .iBeacon(let uuid, _, _): byUUID[uuid, default: []].append((c.id, c.match))
        case .eddystone(let ns, _): byNamespace[ns, default: []].append((c.id, c.match))
        case .altBeacon(let prefix): altBeacon[prefix.utf8.count, default: [:]][prefix, default: []].append(c.id)
        case .altBeaconIDs(let id1, _, _): byID1[id1, default: []].append((c.id, c.match))
        }
        cache.removeAll(keepingCapacity: true)
    }

    mutating func remove(_ c: BeaconCondition) {
        switch c.match {
        case .iBeacon(let uuid, _, _):
            byUUID[uuid]?.removeAll { $0.id == c.id }
            if byUUID[uuid]?.isEmpty == true { byUUID[uuid] = nil }
        case .eddystone(let ns, _):
            byNamespace[ns]?.removeAll { $0.id == c.id }
            if byNamespace[ns]?.isEmpty == true { byNamespace[ns] = nil }
        case .altBeacon(let prefix):
            altBeacon[prefix.utf8.count]?[prefix]?.removeAll { $0 == c.id }
            if altBeacon[prefix.utf8.count]?[prefix]?.isEmpty == true { altBeacon[prefix.utf8.count]?[prefix] = nil }
        case .altBeaconIDs(let id1, _, _):
            byID1[id1]?.removeAll { $0.id == c.id }
            if byID1[id1]?.isEmpty == true { byID1[id1] = nil }
        }
        cache.removeAll(keepingCapacity: true)
    }

    /// Ids of the conditions `identity` satisfies, sorted.
    mutating func matches(_ identity: BeaconIdentity) -> [String] {
        if let hit = cache[identity] { return hit }
        var ids: [String] = []
        switch identity.format {
        case .iBeacon:
            for c in byUUID[identity.uuid ?? ""] ?? [] where c.match.matches(identity) { ids.append(c.id) }
        case .eddystoneUID:
            for c in byNamespace[identity.namespace ?? ""] ?? [] where c.match.matches(identity) { ids.append(c.id) }
        case .altBeacon:
            let id = identity.beaconID ?? ""
            for (length, prefixes) in altBeacon where length <= id.utf8.count {
                ids += prefixes[String(id.prefix(length))] ?? []
            }
            if let split = identity.altBeaconIdentifiers {
                for c in byID1[split.id1] ?? [] where c.match.matches(identity) { ids.append(c.id) }
            }
        }
        ids.sort()
        if cache.count >= Self.cacheLimit { cache.removeAll(keepingCapacity: true) }
        cache[identity] = ids
        return ids
    }
}

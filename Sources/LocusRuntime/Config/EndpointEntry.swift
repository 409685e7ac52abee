import LocusBus
import LocusCore

/// The key files of a CURVE endpoint (`curve:` in an endpoint entry), paths as written until
/// `HubBlock.applied` resolves them against the config file's directory.
public struct CurveFiles: Sendable, Equatable {
    /// The server's secret certificate (`locus keygen NAME` writes `NAME.key_secret`).
    public var secretKeyFile: String
    /// Directory of the public certificates (`NAME.key`) of the clients allowed to connect.
    public var authorizedKeys: String

    public init(secretKeyFile: String, authorizedKeys: String) {
        self.secretKeyFile = secretKeyFile
        self.authorizedKeys = authorizedKeys
    }

    func resolved(against directory: String) -> CurveFiles {
        func abs(_ p: String) -> String { p.hasPrefix("/") ? p : directory + "/" + p }
        return CurveFiles(secretKeyFile: abs(secretKeyFile), authorizedKeys: abs(authorizedKeys))
    }
}

/// One entry of an endpoint list in `hub:`: either a string (`tcp://127.0.0.1:5556`) or a
/// mapping that adds the endpoint's security:
///
/// ```yaml
/// publish:
///   - endpoint: tcp://0.0.0.0:5556
///     curve: {secret_key_file: keys/server.key_secret, authorized_keys: keys/clients}
///   - {endpoint: "tcp://192.168.1.5:5557", insecure: true}
/// ```
///
/// A TCP endpoint beyond loopback must have `curve:` or say `insecure: true`; the control
/// socket never accepts `insecure` there (`problem(control:)`).
struct EndpointEntry: Equatable {
    var endpoint: String
    var curve: CurveFiles?
    var insecure = false
    /// ipc only: the group whose members may connect (socket file 0660 of that group).
    var group: String?
    /// Ingest only: reserved topic prefixes its publishers may use anyway (`allow_topics: [..]`),
    /// and per CURVE client key name (`allow_topics: {NAME: [..]}`).
    var allowTopics: [String] = []
    var clientTopics: [String: [String]] = [:]
    /// Publish only: the only topic prefixes ever sent here (empty: all), and the grid positions
    /// are reduced to (`PrecisionReduction`).
    var topics: [String] = []
    var precision: PrecisionReduction?

    /// Which socket the entry is for.
    enum Role { case ingest, publish, catchup, control }

    static let keys = ["endpoint", "curve", "insecure", "group", "allow_topics", "topics", "precision"]
    static let curveKeys = ["secret_key_file", "authorized_keys"]

    /// Reads one entry; `key` is its path for messages (`publish.1`).
    static func read(_ raw: RawEntry, key: String, role: Role) throws -> EndpointEntry {
        let entry: EndpointEntry
        switch raw {
        case .text(let endpoint):
            entry = EndpointEntry(endpoint: endpoint)
        case .mapping(let fields):
            // Every misspelt key, of the entry and of its curve mapping, each at its own position.
            var unknown = UnknownConfigKeyError.check(fields.keys, allowed: keys, container: key)
            if case .mapping(let curveFields)? = fields["curve"] {
                unknown += UnknownConfigKeyError.check(curveFields.keys, allowed: curveKeys, container: key + ".curve")
            }
            if unknown.count == 1 { throw unknown[0] }
            if unknown.count > 1 { throw SettingErrors(errors: unknown) }
            guard case .text(let endpoint)? = fields["endpoint"] else {
                throw ConfigValueError(key: key, "an endpoint entry that is a mapping needs 'endpoint: <ipc://path or tcp://host:port>'")
            }
            var e = EndpointEntry(endpoint: endpoint)
            switch fields["insecure"] {
            case nil: break
            case .flag(let b)?: e.insecure = b
            default: throw ConfigValueError(key: key + ".insecure", "insecure must be true or false")
            }
            switch fields["group"] {
            case nil: break
            case .text(let g)? where !g.isEmpty: e.group = g
            default: throw ConfigValueError(key: key + ".group", "group must be a group name or number")
            }
            switch fields["topics"] {
            case nil: break
            case .list(let prefixes)?: e.topics = try topicPrefixes(prefixes, key: key + ".topics")
            default: throw ConfigValueError(key: key + ".topics", "topics is a list of topic prefixes, such as [region., location.update.]")
            }
            switch fields["precision"] {
            case nil: break
            case .text(let t)?:
                guard let metres = Double(t), let p = PrecisionReduction(metres: metres) else {
                    throw ConfigValueError(key: key + ".precision", "precision is a grid size in metres from 1 to 1000000, such as 1000, not '\(t)'")
                }
                e.precision = p
            default: throw ConfigValueError(key: key + ".precision", "precision is a grid size in metres, such as 1000")
            }
            switch fields["allow_topics"] {
            case nil: break
            case .list(let prefixes)?:
                e.allowTopics = try topicPrefixes(prefixes, key: key + ".allow_topics")
            case .mapping(let byClient)?:
                for (client, value) in byClient {
                    guard case .list(let prefixes) = value else {
                        throw ConfigValueError(key: key + ".allow_topics.\(client)", "expected a list of topic prefixes for client key '\(client)'")
                    }
                    e.clientTopics[client] = try topicPrefixes(prefixes, key: key + ".allow_topics.\(client)")
                }
            default:
                throw ConfigValueError(key: key + ".allow_topics", "allow_topics is a list of topic prefixes, or a mapping from CURVE client key names to such lists")
            }
            switch fields["curve"] {
            case nil: break
            case .mapping(let fields)?:
                var c: [String: String] = [:]
                for (name, value) in fields {
                    guard case .text(let v) = value else { throw ConfigValueError(key: key + ".curve.\(name)", "\(name) must be a path") }
                    c[name] = v
                }
                guard let secret = c["secret_key_file"], !secret.isEmpty, let dir = c["authorized_keys"], !dir.isEmpty else {
                    throw ConfigValueError(key: key + ".curve", "curve needs secret_key_file (the server's NAME.key_secret from locus keygen) and authorized_keys (a directory of the clients' NAME.key files)")
                }
                e.curve = CurveFiles(secretKeyFile: secret, authorizedKeys: dir)
            default:
                throw ConfigValueError(key: key + ".curve", "curve must be a mapping {secret_key_file: FILE, authorized_keys: DIR}")
            }
            entry = e
        case .flag, .list:
            throw ConfigValueError(key: key, "expected an endpoint string or a mapping {endpoint, curve, insecure}")
        }
        if let problem = ConfigEndpoint.problem(entry.endpoint) { throw ConfigValueError(key: key, problem) }
        if let problem = entry.securityProblem(role: role) { throw ConfigValueError(key: key, problem) }
        return entry
    }

    /// Why this entry may not be bound as written, if it may not.
    func securityProblem(role: Role) -> String? {
        let control = role == .control
        let tcp = endpoint.hasPrefix("tcp://")
        if curve != nil && !tcp {
            return "curve applies to tcp endpoints; \(endpoint) is reached through the file system, whose permissions protect it"
        }
        if group != nil && !endpoint.hasPrefix("ipc://") {
            return "group applies to ipc endpoints (the socket file's group); a tcp endpoint is protected with curve"
        }
        if (!topics.isEmpty || precision != nil) && role != .publish {
            return "topics and precision apply to publish endpoints (the catch-up socket serves the whole journal: keep it where the full data may go)"
        }
        if !(allowTopics.isEmpty && clientTopics.isEmpty) && role != .ingest {
            return "allow_topics applies to ingest endpoints"
        }
        if curve != nil && insecure { return "\(endpoint) has both curve and insecure: true; choose one" }
        guard tcp, !ConfigEndpoint.isLoopback(endpoint), curve == nil else { return nil }
        if control {
            return "the control socket on \(endpoint) would let anyone on the network change regions and stop plugins; bind it to loopback or ipc, or give it curve: {secret_key_file, authorized_keys} (insecure is never accepted for control)"
        }
        if insecure { return nil }
        return "\(endpoint) is reachable beyond this machine without encryption or authentication: location data would be readable (and forgeable) by anyone on the network. Add curve: {secret_key_file, authorized_keys} (see docs/security.md), or insecure: true if the network itself is trusted"
    }

    private static func topicPrefixes(_ list: [String], key: String) throws -> [String] {
        for p in list where !Topic.isValidPrefix(p) || p.isEmpty {
            throw ConfigValueError(key: key, "'\(p)' is not a topic prefix (lower-case segments joined by dots, such as region. or region.enter.)")
        }
        return list
    }

    /// An endpoint entry as YAML gave it, before checks.
    indirect enum RawEntry: Decodable, Equatable {
        case text(String)
        case flag(Bool)
        case list([String])
        case mapping([String: RawEntry])

        init(from decoder: Decoder) throws {
            let single = try? decoder.singleValueContainer()
            if let b = try? single?.decode(Bool.self) { self = .flag(b); return }
            if let s = try? single?.decode(String.self) { self = .text(s); return }
            if let l = try? single?.decode([String].self) { self = .list(l); return }
            if let m = try? single?.decode([String: RawEntry].self) { self = .mapping(m); return }
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "expected an endpoint string or a mapping {endpoint, curve, insecure}"))
        }
    }
}

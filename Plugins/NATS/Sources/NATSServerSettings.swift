import Foundation
import LocusCore
import LocusNATS

/// How the `nats` source and sink reach their NATS cluster: the keys both take, declared once.
public struct NATSServerSettings: SettingGroup, Equatable {
    @Setting("servers", "nats://host:port URLs of the cluster's servers; the client fails over between them.")
    public var servers: [String] = ["nats://127.0.0.1:4222"]

    @Setting("user", "User name for the server; empty = none.")
    public var user: String = ""

    @Setting("password_file", "File holding the user's password (first line); relative to the config file.")
    public var passwordFile: String = ""

    @Setting("token_file", "File holding an authentication token (first line), instead of user and password.")
    public var tokenFile: String = ""

    @Setting("timeout", "Seconds a connect attempt or a JetStream request may take.", check: .within(0.1...60))
    public var timeout: Double = 2

    @Setting("reconnect_min", "First delay before a new first connection attempt, seconds; doubles up to reconnect_max (once connected, the client reconnects by itself, every second).",
             check: .above(0))
    public var reconnectMin: Double = 0.5

    @Setting("reconnect_max", "Longest delay between first connection attempts, seconds.", check: .above(0))
    public var reconnectMax: Double = 30

    public init() {}

    public func validate() throws {
        if servers.isEmpty { throw ConfigValueError(key: "servers", "needs at least one nats://host:port") }
        for url in servers where !(url.hasPrefix("nats://") || url.hasPrefix("tls://")) || url.contains(",") {
            throw ConfigValueError(key: "servers", "'\(url)': give one nats://host:port per entry")
        }
        if !tokenFile.isEmpty, !user.isEmpty { throw ConfigValueError(key: "token_file", "give user and password_file, or token_file, not both") }
        if reconnectMax < reconnectMin {
            throw ConfigValueError(key: "reconnect_max", "must be at least reconnect_min (\(reconnectMin)), found \(reconnectMax)")
        }
    }

    /// The connection settings, with the password or token read from their files.
    /// - Throws: `ConfigValueError` naming the key of a file that cannot be read.
    func connection(name: String, setup: PluginSetup) throws -> NATSConnectionSettings {
        func firstLine(_ path: String, key: String) throws -> String? {
            guard !path.isEmpty else { return nil }
            let full = setup.resolvePath(path)
            guard let text = try? String(contentsOfFile: full, encoding: .utf8) else { throw ConfigValueError(key: key, "cannot read \(full)") }
            return text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        }
        return NATSConnectionSettings(servers: servers, name: name, user: user.isEmpty ? nil : user,
                                      password: try firstLine(passwordFile, key: "password_file"),
                                      token: try firstLine(tokenFile, key: "token_file"), timeoutMs: Int64(timeout * 1000))
    }
}

import Foundation
import LocusCore

/// How the `mqtt` source and sink reach their broker: the keys both take, declared once.
/// Each configuration holds one (`connection`); its keys stand first in the plugin's key list.
public struct MQTTConnectionSettings: SettingGroup, Equatable {
    /// The MQTT protocol version spoken to the broker.
    public enum ProtocolVersion: String, Sendable, Equatable, CaseIterable, SettingValue {
        case v311 = "3.1.1"
        case v5 = "5"
    }

    @Setting("host", "Broker host name or address.")
    public var host: String = "127.0.0.1"

    @Setting("port", "Broker port; 0 = 1883, or 8883 with TLS.", check: .within(0...65535))
    public var port: Int = 0

    @Setting("protocol", "MQTT protocol version: 3.1.1 or 5 (the source's share_group needs 5).")
    public var protocolVersion: ProtocolVersion = .v311

    @Setting("username", "User name for the broker; empty = none.")
    public var username: String = ""

    @Setting("password", "Password for the broker (prefer password_file).")
    public var password: String = ""

    @Setting("password_file", "File holding the password (first line); relative to the config file.")
    public var passwordFile: String = ""

    @Setting("tls_ca_file", "CA certificate file (PEM): turns TLS on; the broker's certificate must chain to it.")
    public var tlsCAFile: String = ""

    @Setting("tls_cert_file", "Client certificate (PEM) for brokers that require one; needs tls_ca_file.")
    public var tlsCertFile: String = ""

    @Setting("tls_key_file", "Client certificate's private key (PEM).")
    public var tlsKeyFile: String = ""

    @Setting("tls_verify_hostname", "Check that the broker's certificate names the host connected to.")
    public var tlsVerifyHostname: Bool = true

    @Setting("keepalive", "Seconds between keepalive pings; the broker drops the client after 1.5 times that.", check: .within(5...65535))
    public var keepalive: Int = 60

    @Setting("reconnect_min", "First delay before reconnecting, seconds; doubles up to reconnect_max.", check: .above(0))
    public var reconnectMin: Double = 0.5

    @Setting("reconnect_max", "Longest delay between reconnect attempts, seconds.", check: .above(0))
    public var reconnectMax: Double = 30

    public init() {}

    public func validate() throws {
        if !password.isEmpty, !passwordFile.isEmpty {
            throw ConfigValueError(key: "password_file", "give password or password_file, not both")
        }
        if tlsCAFile.isEmpty, !tlsCertFile.isEmpty || !tlsKeyFile.isEmpty {
            throw ConfigValueError(key: "tls_ca_file", "a client certificate needs TLS: give tls_ca_file too")
        }
        if tlsCertFile.isEmpty != tlsKeyFile.isEmpty {
            throw ConfigValueError(key: tlsCertFile.isEmpty ? "tls_cert_file" : "tls_key_file",
                                   "tls_cert_file and tls_key_file go together")
        }
        if reconnectMax < reconnectMin {
            throw ConfigValueError(key: "reconnect_max", "must be at least reconnect_min (\(reconnectMin)), found \(reconnectMax)")
        }
    }

    /// These settings with the TLS files' paths resolved against the config file's directory,
    /// and the password (from `password_file` when given); nil when there is none.
    /// - Throws: `ConfigValueError` naming the key of a file that cannot be read.
    func resolved(_ setup: PluginSetup) throws -> (MQTTConnectionSettings, password: String?) {
        var resolved = self
        resolved.tlsCAFile = try Self.readableFile(tlsCAFile, key: "tls_ca_file", setup: setup)
        resolved.tlsCertFile = try Self.readableFile(tlsCertFile, key: "tls_cert_file", setup: setup)
        resolved.tlsKeyFile = try Self.readableFile(tlsKeyFile, key: "tls_key_file", setup: setup)
        return (resolved, try readPassword(setup))
    }

    private func readPassword(_ setup: PluginSetup) throws -> String? {
        if !passwordFile.isEmpty {
            let path = setup.resolvePath(passwordFile)
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw ConfigValueError(key: "password_file", "cannot read \(path)")
            }
            return text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        }
        return password.isEmpty ? nil : password
    }

    private static func readableFile(_ path: String, key: String, setup: PluginSetup) throws -> String {
        guard !path.isEmpty else { return path }
        let full = setup.resolvePath(path)
        guard FileManager.default.isReadableFile(atPath: full) else { throw ConfigValueError(key: key, "cannot read \(full)") }
        return full
    }

    /// A client for this broker: protocol version, credentials and TLS set, not yet connected.
    func makeClient(clientId: String, cleanSession: Bool, password: String?) throws -> MosquittoClient {
        let client = try MosquittoClient(clientId: clientId, cleanSession: cleanSession, protocolVersion: protocolVersion == .v5 ? 5 : 4)
        if !username.isEmpty { try client.setCredentials(username: username, password: password) }
        if !tlsCAFile.isEmpty {
            try client.setTLS(caFile: tlsCAFile, certFile: tlsCertFile.isEmpty ? nil : tlsCertFile,
                              keyFile: tlsKeyFile.isEmpty ? nil : tlsKeyFile, verifyHostname: tlsVerifyHostname)
        }
        return client
    }

    /// The port to connect to: the configured one, or MQTT's standard port for plain or TLS.
    var effectivePort: Int { port != 0 ? port : (tlsCAFile.isEmpty ? 1883 : 8883) }

    /// `host:port` as logs and status reasons show the broker.
    var brokerText: String { "\(host):\(effectivePort)" }
}

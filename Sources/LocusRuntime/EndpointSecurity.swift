import Foundation
import LocusBus

/// The CURVE endpoints of a configuration, their keys read from disk: what the hub, control and
/// catch-up sockets bind with, and what the `ZAPHandler` accepts on each.
struct EndpointSecurity {
    /// Per endpoint: the server's secret key and the ZAP domain (the endpoint itself).
    let servers: [String: CurveServer]
    /// Per ZAP domain: the client keys it accepts.
    let authorized: [String: AuthorizedKeys]

    var isEmpty: Bool { servers.isEmpty }

    /// Reads every endpoint's secret certificate and checks its authorized_keys directory.
    /// Throws a `ConfigurationError`-style message naming the endpoint and the file.
    static func load(_ files: [String: CurveFiles]) throws -> EndpointSecurity {
        guard !files.isEmpty else { return EndpointSecurity(servers: [:], authorized: [:]) }
        guard CurveKey.isAvailable else {
            throw SecurityError("this libzmq is built without CURVE (zmq_has(\"curve\") is false); Debian's libzmq5 has it")
        }
        var servers: [String: CurveServer] = [:]
        var authorized: [String: AuthorizedKeys] = [:]
        for (endpoint, f) in files.sorted(by: { $0.key < $1.key }) {
            try checkPrivate(f.secretKeyFile, endpoint: endpoint)
            let cert: CurveCertificate
            switch CurveCertificate.read(path: f.secretKeyFile) {
            case .success(let c): cert = c
            case .failure(let e): throw SecurityError("\(endpoint): the secret key file \(e)")
            }
            guard let secret = cert.secretKey else {
                throw SecurityError("\(endpoint): \(f.secretKeyFile) has no secret-key; give the NAME.key_secret file locus keygen wrote, not NAME.key")
            }
            let keys = AuthorizedKeys(directory: f.authorizedKeys)
            do { try keys.check() } catch { throw SecurityError("\(endpoint): \(error)") }
            servers[endpoint] = CurveServer(secretKey: secret, domain: endpoint)
            authorized[endpoint] = keys
        }
        return EndpointSecurity(servers: servers, authorized: authorized)
    }

    /// As ssh does for its keys: a secret key others can read is no secret.
    private static func checkPrivate(_ path: String, endpoint: String) throws {
        var st = stat()
        guard stat(path, &st) == 0 else {
            throw SecurityError("\(endpoint): the secret key file \(path): \(String(cString: strerror(errno)))")
        }
        if st.st_mode & 0o077 != 0 {
            throw SecurityError("\(endpoint): the secret key file \(path) has mode \(String(st.st_mode & 0o777, radix: 8)); others can read it. chmod 600 it (locus keygen writes it so)")
        }
    }
}

/// A security setting that cannot be applied (unreadable key, loose permissions, …).
public struct SecurityError: Error, CustomStringConvertible, Sendable {
    public var description: String
    init(_ d: String) { description = d }
}

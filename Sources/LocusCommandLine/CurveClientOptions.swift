import ArgumentParser
import Foundation
import LocusBus

/// `--server-key` and `--key`, shared by the commands that connect to a CURVE endpoint
/// (`locus sub`, `locus record`, `locus ctl`). Both can also come from the environment
/// (`LOCUS_SERVER_KEY`, `LOCUS_CLIENT_KEY`), which is how `exec` plugins get them. They apply
/// to tcp endpoints only: ipc sockets are protected by file permissions.
struct CurveClientOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The server's public key: its NAME.key certificate file, or the 40-character Z85 key. Makes a tcp connection CURVE-encrypted (env LOCUS_SERVER_KEY; ignored for ipc).", valueName: "file|key"))
    var serverKey: String?

    @Option(name: .long, help: ArgumentHelp("This client's secret certificate (NAME.key_secret from locus keygen); its NAME.key must be in the server's authorized_keys (env LOCUS_CLIENT_KEY).", valueName: "file"))
    var key: String?

    /// The keys for a CURVE connection, nil for a plain one. Throws a `ValidationError` saying
    /// what is missing or unreadable.
    func client(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> CurveClient? {
        let server = serverKey ?? environment["LOCUS_SERVER_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        let own = key ?? environment["LOCUS_CLIENT_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        switch (server, own) {
        case (nil, nil): return nil
        case (nil, _): throw ValidationError("--key needs --server-key too (the server's NAME.key)")
        case (_, nil): throw ValidationError("--server-key needs --key too (this client's NAME.key_secret; create one with locus keygen)")
        case (let server?, let own?):
            let serverPublic: CurveKey
            if let k = CurveKey(z85: server) {
                serverPublic = k
            } else {
                switch CurveCertificate.read(path: server) {
                case .success(let c): serverPublic = c.publicKey
                case .failure(let e): throw ValidationError("--server-key: \(e)")
                }
            }
            switch CurveCertificate.read(path: own) {
            case .success(let c):
                guard let secret = c.secretKey else {
                    throw ValidationError("--key: \(own) has no secret-key; give the NAME.key_secret file, not NAME.key")
                }
                return CurveClient(serverKey: serverPublic, publicKey: c.publicKey, secretKey: secret)
            case .failure(let e): throw ValidationError("--key: \(e)")
            }
        }
    }
}

struct KeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Create a CURVE keypair: NAME.key (public, give it away) and NAME.key_secret (mode 0600).",
        discussion: """
        The files are the certificates pyzmq's zmq.auth and czmq read and write. For a server \
        endpoint, name the NAME.key_secret in its curve.secret_key_file and give clients \
        NAME.key (--server-key). For a client, copy NAME.key into the server's authorized_keys \
        directory and use NAME.key_secret with --key: the server then knows the client as NAME \
        in its logs and metrics. Existing files are never overwritten. See docs/security.md.
        """
    )

    @Argument(help: "Name of the key: letters, digits, '.', '_' and '-'.")
    var name: String

    @Option(name: [.customShort("d"), .long], help: "Directory to write the two files in (created 0700 if missing).")
    var directory: String = "."

    func validate() throws {
        guard !name.isEmpty, name.count <= 200, !name.hasPrefix("."),
              name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }) else {
            throw ValidationError("'\(name)' is not a key name: letters, digits, '.', '_' and '-', not starting with '.'")
        }
    }

    func run() throws {
        guard CurveKey.isAvailable else {
            throw ValidationError("this libzmq is built without CURVE (zmq_has(\"curve\") is false)")
        }
        var isDir: ObjCBool = false
        if !FileManager.default.fileExists(atPath: directory, isDirectory: &isDir) {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } else if !isDir.boolValue {
            throw ValidationError("\(directory) is not a directory")
        }
        let base = directory + "/" + name
        let (pub, sec) = try CurveKey.keypair()
        let date = ISO8601DateFormatter().string(from: Date())
        try write(CurveCertificate(publicKey: pub, secretKey: sec).text(generated: date), to: base + ".key_secret", mode: 0o600)
        try write(CurveCertificate(publicKey: pub).text(generated: date), to: base + ".key", mode: 0o644)
        print("\(base).key         public key \(pub.z85)")
        print("\(base).key_secret  secret key (mode 0600: keep it on this machine)")
    }

    /// Creates the file exclusively with `mode` whatever the umask, so an existing key is never
    /// replaced and a secret is never readable by others even for a moment.
    private func write(_ text: String, to path: String, mode: mode_t) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else {
            let e = errno
            FileHandle.standardError.write(Data(("locus keygen: " + (e == EEXIST
                ? "\(path) exists; keygen never overwrites a key (remove it first, or choose another name)"
                : "cannot create \(path): \(String(cString: strerror(e)))") + "\n").utf8))
            throw ExitCode(ExitStatus.failure)
        }
        defer { close(fd) }
        guard fchmod(fd, mode) == 0 else { throw ValidationError("cannot set the mode of \(path): \(String(cString: strerror(errno)))") }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw ValidationError("cannot write \(path): \(String(cString: strerror(errno)))") }
    }
}

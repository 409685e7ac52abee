import Foundation
import Testing

/// Issue 30 item 5: what `locus run` refuses before it starts its plugins, `locus check` refuses
/// first, with the same message and exit status 2, and `run` exits 2 for it too. Before: a
/// missing or world-readable CURVE secret key file, a loose state directory, an unknown socket
/// group passed `check` ("OK") and then `run` exited 1; a recorded log given as a serial device
/// passed both and was reopened for ever.
@Suite(.serialized) struct CheckAgreesWithRunTests {
    struct Refusal: CustomStringConvertible, Sendable {
        var name: String
        /// The config's `hub:` extras and its plugin sections; `{dir}` is the case's directory.
        var config: String
        /// Files to make first: path relative to the case's directory, and its mode.
        var files: [(String, mode_t)] = []
        var directories: [(String, mode_t)] = []
        /// What both messages must contain.
        var says: String
        var description: String { name }
    }

    static let refusals: [Refusal] = [
        Refusal(name: "missing secret key file", config: """
            hub:
              publish: [{endpoint: "tcp://127.0.0.1:47311", curve: {secret_key_file: keys/nope.key_secret, authorized_keys: clients}}]
            """, directories: [("clients", 0o700)], says: "the secret key file {dir}/keys/nope.key_secret: No such file or directory"),
        Refusal(name: "world-readable secret key file", config: """
            hub:
              publish: [{endpoint: "tcp://127.0.0.1:47312", curve: {secret_key_file: server.key_secret, authorized_keys: clients}}]
            """, files: [("server.key_secret", 0o644)], directories: [("clients", 0o700)], says: "has mode 644; others can read it"),
        Refusal(name: "missing authorized_keys directory", config: """
            hub:
              publish: [{endpoint: "tcp://127.0.0.1:47313", curve: {secret_key_file: server.key_secret, authorized_keys: nobody}}]
            """, files: [("server.key_secret", 0o600)], says: "authorized_keys directory {dir}/nobody: No such file or directory"),
        Refusal(name: "state directory others can write", config: """
            hub:
              state_directory: {dir}/state
            """, directories: [("state", 0o777)], says: "the state directory {dir}/state has mode 777: others may replace its files"),
        Refusal(name: "socket group that does not exist", config: """
            hub:
              publish: [{endpoint: "ipc://{dir}/run/publish.sock", group: no-such-group-locus}]
            """, says: "no-such-group-locus"),
        Refusal(name: "recorded log as a serial device", config: """
            sources:
              - {type: nmea-serial, id: gps0, device: walk.nmea}
            """, files: [("walk.nmea", 0o600)], says: "{dir}/walk.nmea is a regular file, not a serial device"),
        Refusal(name: "exec program not found", config: """
            sources:
              - {type: exec, id: bridge, command: [no-such-program-locus]}
            """, says: "program 'no-such-program-locus' not found in PATH"),
        Refusal(name: "web token file missing", config: """
            sinks:
              - {type: web, id: web, listen: "127.0.0.1:47314", token_file: token.txt}
            """, says: "cannot read a token of at least 16 characters from the first line of {dir}/token.txt"),
        Refusal(name: "gpsd-server beyond loopback without insecure", config: """
            sinks:
              - {type: gpsd-server, id: gpsd, listen: "0.0.0.0:47315"}
            """, says: "0.0.0.0:47315 is not loopback: gpsd's protocol has no authentication"),
    ]

    @Test(arguments: refusals)
    func checkRefusesWhatRunRefusesWithTheSameMessage(_ refusal: Refusal) async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for (path, mode) in refusal.directories {
            try FileManager.default.createDirectory(atPath: dir + "/" + path, withIntermediateDirectories: true)
            chmod(dir + "/" + path, mode)
        }
        if refusal.files.contains(where: { $0.0.hasSuffix(".key_secret") }) {
            let made = try await runToEnd(E2E.binary, ["keygen", "server", "-d", dir], directory: dir)
            #expect(made.status == 0, "\(made.stderr)")
        }
        for (path, mode) in refusal.files {
            if !FileManager.default.fileExists(atPath: dir + "/" + path) {
                try "$GPGGA,120000.00,4546.0000,N,01421.0000,E,1,08,1.0,500.0,M,45.0,M,,*6B\r\n".write(toFile: dir + "/" + path, atomically: true, encoding: .utf8)
            }
            chmod(dir + "/" + path, mode)
        }
        let config = dir + "/config.yaml"
        try refusal.config.replacingOccurrences(of: "{dir}", with: dir).write(toFile: config, atomically: true, encoding: .utf8)
        let says = refusal.says.replacingOccurrences(of: "{dir}", with: dir)
        let env = ["LOCUS_RUNTIME_DIR": dir + "/run", "LOCUS_STATE_DIR": dir + "/state"]

        let check = try await runToEnd(E2E.binary, ["check", config], directory: dir, environment: env, timeout: 20)
        #expect(check.status == 2, "check: \(check.stdout)\(check.stderr)")
        #expect(check.stderr.contains(says), "check said: \(check.stderr)")
        let run = try await runToEnd(E2E.binary, ["run", config], directory: dir, environment: env, timeout: 20)
        #expect(run.status == 2, "run: \(run.stderr)")
        // The same message: check's error line appears in run's output as it is.
        let line = check.stderr.split(separator: "\n").first { $0.contains(says) }.map(String.init) ?? "?"
        #expect(run.stderr.contains(line), "check said \(line); run said: \(run.stderr)")
    }
}

import Foundation
import Testing

/// Issue 15, item 2: what another local user can reach. Runs the daemon as this user (root in
/// CI) and the other user as `nobody` through setpriv(1); needs root to switch users.
@Suite(.serialized, .enabled(if: getuid() == 0, "switching to another user (setpriv) needs root"))
struct PermissionsTests {
    static let nobody = ["--reuid=65534", "--regid=65534"]

    static func mode(_ path: String) -> Int {
        var st = stat()
        return stat(path, &st) == 0 ? Int(st.st_mode & 0o777) : -1
    }

    /// Runs `arguments` as nobody (with `groups` as supplementary groups).
    static func asNobody(_ arguments: [String], groups: [String] = [], directory: String) async throws -> (status: Int32, stdout: String, stderr: String) {
        let groupArgs = groups.isEmpty ? ["--clear-groups"] : ["--groups=" + groups.joined(separator: ",")]
        return try await runToEnd("/usr/bin/setpriv", nobody + groupArgs + arguments, directory: directory, timeout: 30)
    }

    static func connectResults(_ paths: [String], groups: [String] = [], directory: String) async throws -> [String: String] {
        let r = try await asNobody([E2E.python, E2E.script("unix_connect.py")] + paths, groups: groups, directory: directory)
        return (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: String]) ?? ["error": r.stderr]
    }

    @Test func everythingIsPrivateWhateverTheUmask() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        chmod(dir, 0o755)  // so only Locus's own directories stand between nobody and its files
        let rt = dir + "/rt", state = dir + "/state"
        let config = dir + "/config.yaml"
        try """
        hub:
          state_directory: \(state)
        sources:
          - {type: replay, id: walk, file: \(E2E.fixture("walk-short.jsonl")), speed: 20, loop: true}
        services:
          - type: region
            id: fences
            regions: [{id: lake, center: {lat: 45.75, lon: 14.36}, radius: 2000}]
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let locus = try ChildProcess("/bin/sh", ["-c", "umask 0; exec \"$0\" run \"$1\"", E2E.binary, config], directory: dir,
                                     environment: ["LOCUS_RUNTIME_DIR": rt])
        defer { locus.kill9() }
        #expect(await waitUntil(timeout: 20) { FileManager.default.fileExists(atPath: state + "/services/fences.sqlite-wal") }, "\(locus.stderr)")
        #expect(await waitUntil(timeout: 20) { Self.mode(rt + "/catchup.sock") == 0o600 })
        #expect(Self.mode(rt) == 0o700)
        #expect(Self.mode(state) == 0o700)
        let sockets = ["ingest", "publish", "control", "catchup"].map { rt + "/\($0).sock" }
        for s in sockets { #expect(Self.mode(s) == 0o600, "\(s)") }
        let files = (FileManager.default.enumerator(atPath: state)?.allObjects as? [String] ?? []).map { state + "/" + $0 }
        #expect(files.contains { $0.hasSuffix(".journal") } && files.contains { $0.hasSuffix("services/fences.sqlite") }, "\(files)")
        for f in files where !f.hasSuffix("/journal") && Self.mode(f) != 0o700 {
            #expect(Self.mode(f) == 0o600, "\(f) has mode \(String(Self.mode(f), radix: 8))")
        }
        // Another user reaches nothing: no socket, no state, no replacing a socket.
        let connect = try await Self.connectResults(sockets, directory: dir)
        for s in sockets { #expect(connect[s] == "EACCES", "\(connect)") }
        let read = try await Self.asNobody(["/bin/ls", state], directory: dir)
        #expect(read.status != 0)
        let replace = try await Self.asNobody(["/bin/rm", "-f", rt + "/publish.sock"], directory: dir)
        #expect(replace.status != 0 && FileManager.default.fileExists(atPath: rt + "/publish.sock"))
        let ctl = try await Self.asNobody([E2E.binary, "ctl", "status", "-e", "ipc://\(rt)/control.sock", "--timeout", "2"], directory: dir)
        #expect(ctl.status != 0)
    }

    @Test func looseOrForeignDirectoriesAreRefused() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let rt = dir + "/rt"
        try "sources: []\n".write(toFile: dir + "/c.yaml", atomically: true, encoding: .utf8)
        func run() async throws -> (status: Int32, stdout: String, stderr: String) {
            try await runToEnd(E2E.binary, ["run", dir + "/c.yaml"], directory: dir,
                               environment: ["LOCUS_RUNTIME_DIR": rt, "LOCUS_STATE_DIR": dir + "/state"], timeout: 20)
        }
        // The attack from the issue: a runtime directory made in advance, open to all.
        mkdir(rt, 0o700); chmod(rt, 0o777)
        let open = try await run()
        #expect(open.status != 0 && open.stderr.contains("runtime directory \(rt) has mode 777"), "\(open.stderr)")
        #expect(!FileManager.default.fileExists(atPath: rt + "/control.sock"))
        chmod(rt, 0o700); chown(rt, 65534, 65534)
        let foreign = try await run()
        #expect(foreign.status != 0 && foreign.stderr.contains("belongs to nobody"), "\(foreign.stderr)")
        chown(rt, 0, 0)
        mkdir(dir + "/state", 0o700); chmod(dir + "/state", 0o755)
        let state = try await run()
        #expect(state.status != 0 && state.stderr.contains("state directory \(dir)/state has mode 755"), "\(state.stderr)")
    }

    /// The systemd unit's layout: subscribers (a group) may read events but neither publish
    /// nor use the control socket.
    @Test func aSubscribersGroupMaySubscribeOnly() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        chmod(dir, 0o755)
        let rt = dir + "/rt"
        let config = dir + "/config.yaml"
        try """
        hub:
          publish: [{endpoint: "ipc://\(rt)/publish.sock", group: "4242"}]
        sources:
          - {type: replay, id: walk, file: \(E2E.fixture("walk-short.jsonl")), speed: 20, loop: true}
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let locus = try ChildProcess(E2E.binary, ["run", config], directory: dir, environment: ["LOCUS_RUNTIME_DIR": rt])
        defer { locus.kill9() }
        #expect(await waitUntil(timeout: 20) { locus.stderr.contains("hub started") }, "\(locus.stderr)")
        #expect(await waitUntil(timeout: 10) { Self.mode(rt + "/publish.sock") == 0o660 })
        #expect(Self.mode(rt) == 0o711)
        let paths = ["publish", "ingest", "control", "catchup"].map { rt + "/\($0).sock" }
        let member = try await Self.connectResults(paths, groups: ["4242"], directory: dir)
        #expect(member[paths[0]] == "ok", "\(member)")
        for p in paths.dropFirst() { #expect(member[p] == "EACCES", "\(member)") }
        let stranger = try await Self.connectResults(paths, directory: dir)
        for p in paths { #expect(stranger[p] == "EACCES", "\(stranger)") }
        // And through ZeroMQ: the member receives events.
        let got = try await Self.asNobody([E2E.python, E2E.script("collect.py"), "--endpoint", "ipc://\(rt)/publish.sock",
                                           "--count", "3", "--max-wait", "10"], groups: ["4242"], directory: dir)
        #expect(got.status == 0 && got.stdout.split(separator: "\n").count == 3, "\(got.stderr)")
    }
}

import Foundation
import LocusTestKit
import Testing

/// A loopback TCP port another program listens on, for as long as this value lives.
final class HeldPort {
    let port: Int
    private let fd: Int32

    /// Port `port` (0: one the kernel picks); throws when another program holds it.
    init(port: Int = 0) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = UInt16(port).bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let fd = self.fd
        let ok = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && listen(fd, 4) == 0 && getsockname(fd, $0, &len) == 0 }
        }
        guard ok else { close(fd); throw POSIXError(.EADDRINUSE) }
        self.port = Int(UInt16(bigEndian: addr.sin_port))
    }

    deinit { close(fd) }
}

/// Issue 50, item 2: a listener whose port another program holds says which port, what
/// probably holds it, how to see which program, and what moves it — the hub's endpoints (the
/// demo's LOCUS_DEMO_PORT), the web sink (LOCUS_WEB_PORT), and `locus view`, which takes a
/// free port when its default one is taken.
@Suite(.serialized) struct BusyPortTests {
    static let walk = E2E.repoRoot + "/data/recordings/cerknica-walk.jsonl"

    /// The README's demo, `locus run` of config.yaml, with its TCP publish port taken.
    @Test func theDemosBusPortTakenSaysWhatMovesIt() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let held = try HeldPort()
        let web = try LoopbackPort.free()
        let run = try await runToEnd(E2E.binary, ["run", E2E.repoRoot + "/config.yaml"], directory: dir, environment: [
            "LOCUS_RUNTIME_DIR": dir, "LOCUS_DEMO_PORT": "\(held.port)", "LOCUS_WEB_PORT": "\(web)"], timeout: 30)
        #expect(run.status == 1, "\(run.stderr.suffix(2000))")
        let said = run.stderr
        #expect(said.contains("tcp://127.0.0.1:\(held.port): port \(held.port) is in use"), "\(said.suffix(2000))")
        #expect(said.contains("ss -ltnp 'sport = :\(held.port)'"), "\(said.suffix(2000))")
        #expect(said.contains("hub.publish") && said.contains("LOCUS_DEMO_PORT"), "\(said.suffix(2000))")
    }

    /// The demo's map page with its port taken: the web sink says so in words (and keeps retrying).
    @Test func theDemosWebPortTakenSaysWhatMovesIt() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let held = try HeldPort()
        let bus = try LoopbackPort.free()
        let locus = try ChildProcess(E2E.binary, ["run", E2E.repoRoot + "/config.yaml"], directory: dir, environment: [
            "LOCUS_RUNTIME_DIR": dir, "LOCUS_DEMO_PORT": "\(bus)", "LOCUS_WEB_PORT": "\(held.port)"])
        defer { locus.kill9() }
        #expect(await waitUntil(timeout: 20) { locus.stderr.contains("ss -ltnp 'sport = :\(held.port)'") }, "\(locus.stderr.suffix(2000))")
        let said = locus.stderr
        #expect(said.contains("127.0.0.1:\(held.port): port \(held.port) is in use"), "\(said.suffix(2000))")
        #expect(said.contains("listen of web sink 'map'"), "\(said.suffix(2000))")
        #expect(!said.contains("bind(descriptor"), "\(said.suffix(2000))")
    }

    /// `locus view` serves on LOCUS_WEB_PORT; when that port (or its default) is taken it takes a
    /// free one and prints it; an explicit --listen that is taken is an error that says so.
    @Test func locusViewTakesAFreePortWhenItsOwnIsTaken() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "services:\n  - {type: standard, id: here}\n".write(toFile: dir + "/view.yaml", atomically: true, encoding: .utf8)
        let args = ["view", Self.walk, "--config", dir + "/view.yaml"]
        let wanted = try LoopbackPort.free()
        let onWanted = try ChildProcess(E2E.binary, args, directory: dir, environment: ["LOCUS_WEB_PORT": "\(wanted)"])
        defer { onWanted.kill9() }
        #expect(await waitUntil(timeout: 20) { onWanted.stdout.contains("http://127.0.0.1:\(wanted)/") }, "\(onWanted.stdout)\(onWanted.stderr)")
        onWanted.kill9()

        let held = try HeldPort()
        let moved = try ChildProcess(E2E.binary, args, directory: dir, environment: ["LOCUS_WEB_PORT": "\(held.port)"])
        defer { moved.kill9() }
        #expect(await waitUntil(timeout: 20) { moved.stdout.contains(" on http://127.0.0.1:") }, "\(moved.stdout)\(moved.stderr)")
        #expect(moved.stderr.contains("port \(held.port) is in use") && moved.stderr.contains("ss -ltnp 'sport = :\(held.port)'"), "\(moved.stderr)")
        let url = moved.stdout.split(separator: " ").first { $0.hasPrefix("http://127.0.0.1:") }.map(String.init) ?? ""
        let port = Int(url.dropFirst("http://127.0.0.1:".count).prefix { $0.isNumber }) ?? 0
        #expect(port > 0 && port != held.port && LoopbackPort.accepts(port), "\(moved.stdout)")
        moved.kill9()

        let strict = try await runToEnd(E2E.binary, args + ["--listen", "127.0.0.1:\(held.port)"], directory: dir, timeout: 20)
        #expect(strict.status == 1 && strict.stderr.contains("port \(held.port) is in use") && strict.stderr.contains("--listen"), "\(strict.stderr)")
    }
}

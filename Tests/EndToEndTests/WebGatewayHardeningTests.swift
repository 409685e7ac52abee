import Foundation
import Testing

/// Issue 29, items 6, 7 and 11: the `web` sink against hostile clients (python3 sockets,
/// Scripts/web_hostile.py) on a real `locus run`: heads too large or too slow, idle and
/// stalled connections, many connections from one address, a flood of history streams that
/// are never read; and a normal stop that logs no error.
@Suite(.serialized) struct WebGatewayHardeningTests {
    static func hostile(_ dir: String, _ port: Int, _ args: [String], timeout: Double = 60) async throws -> [String: Any] {
        let r = try await runToEnd(E2E.python, [E2E.script("web_hostile.py")] + args + ["--port", "\(port)"], directory: dir, timeout: timeout)
        #expect(r.status == 0, "\(r.stderr)")
        return (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]) ?? ["stdout": r.stdout, "stderr": r.stderr]
    }

    /// The daemon's error lines: a client's doing (a refused head, an idle connection) is
    /// counted, not logged as the daemon's error.
    static func errorLines(_ locus: ChildProcess) -> [Substring] {
        locus.stderr.split(separator: "\n").filter { $0.contains(" error ") || $0.contains(" critical ") }
    }

    static func start(_ dir: String, port: Int, replay: String = "speed: 600, start_delay: 1", web: String = "") async throws -> ChildProcess {
        try await WebGatewayTests.start(dir, WebGatewayTests.config(dir, port: port, replay: replay, web: web))
    }

    /// An 8 MB header (the probe's) is answered 431 and the connection closed, without the
    /// gateway reading it all into memory; a 20 KB one is still served.
    @Test func anOversizedRequestHeadIsAnswered431AndClosed() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let port = try MetricsTests.freePort()
        let locus = try await Self.start(dir, port: port)
        defer { locus.kill9() }
        let big = try await Self.hostile(dir, port, ["big-head", "--bytes", "\(8 << 20)", "--max-wait", "15"])
        #expect(big["status"] as? Int == 431 && big["closed"] as? Bool == true, "\(big)")
        let fair = try await Self.hostile(dir, port, ["big-head", "--bytes", "20000", "--max-wait", "2"])
        #expect(fair["status"] as? Int == 200, "\(fair)")
        #expect(WebGatewayTests.counter(dir, "heads_too_large") == 1)
        #expect(await locus.terminate().status == 0)
        #expect(Self.errorLines(locus).isEmpty, "\(Self.errorLines(locus))")
    }

    /// A head sent a byte at a time is answered 408 and closed after header_timeout; a
    /// keep-alive connection with no request is closed after idle_timeout; an event stream
    /// (a request in progress) is neither.
    @Test func slowHeadsAndIdleConnectionsAreClosedButStreamsAreNot() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let port = try MetricsTests.freePort()
        let locus = try await Self.start(dir, port: port, replay: "speed: 60, loop: true, start_delay: 1",
                                         web: ", header_timeout: 1, idle_timeout: 1.5")
        defer { locus.kill9() }
        let stream = try WebGatewayTests.client(dir, ["sse", "--port", "\(port)", "--out", dir + "/stream.jsonl", "--max-wait", "4"])
        defer { stream.kill9() }
        let slow = try await Self.hostile(dir, port, ["slow-head", "--interval", "0.25", "--max-wait", "10"])
        #expect(slow["status"] as? Int == 408 && slow["closed"] as? Bool == true, "\(slow)")
        #expect((slow["seconds"] as? Double ?? 99) < 4 && (slow["sent"] as? Int ?? 0) < 30, "\(slow)")
        let idle = try await Self.hostile(dir, port, ["idle", "--max-wait", "10"])
        #expect(idle["status"] as? Int == 200 && idle["closed"] as? Bool == true, "\(idle)")
        #expect((idle["seconds"] as? Double ?? 99) >= 1 && (idle["seconds"] as? Double ?? 99) < 5, "\(idle)")
        // The stream lasted its 4 s (more than both timeouts), receiving events all along.
        #expect(await stream.wait(timeout: 15) == 0, "\(stream.stderr)")
        let got = WebGatewayTests.received(dir + "/stream.jsonl")
        #expect(got.count > 10, "\(got.count) events")
        #expect(WebGatewayTests.counter(dir, "header_timeouts") == 1)
        #expect(WebGatewayTests.counter(dir, "idle_closed") >= 1)
        #expect(await locus.terminate().status == 0)
        #expect(Self.errorLines(locus).isEmpty, "\(Self.errorLines(locus))")
    }

    /// A client that closes its side of an event stream (FIN, as `nc -N` or a script that
    /// is done) ends the stream at once, not at the next keep-alive write.
    @Test func anEventStreamEndsWhenItsClientClosesItsSide() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let port = try MetricsTests.freePort()
        let locus = try await Self.start(dir, port: port)
        defer { locus.kill9() }
        let closed = try await Self.hostile(dir, port, ["half-close", "--path", "/events", "--max-wait", "10"])
        #expect(closed["status"] as? Int == 200 && closed["closed"] as? Bool == true && (closed["seconds"] as? Double ?? 99) < 3, "\(closed)")
        #expect(await waitUntil(timeout: 3) { WebGatewayTests.counter(dir, "clients_open") == 0 })
        #expect(await locus.terminate().status == 0)
    }

    /// More than max_connections_per_address connections from 127.0.0.1 are answered 503
    /// and closed; once one closes, the address may connect again.
    @Test func connectionsPerAddressAreLimited() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let port = try MetricsTests.freePort()
        let locus = try await Self.start(dir, port: port, web: ", max_connections_per_address: 4")
        defer { locus.kill9() }
        let held = try await Self.hostile(dir, port, ["hold", "--clients", "6", "--path", "/events", "--hold", "2", "--state-every", "0"])
        #expect((held["answers"] as? [String: Int]) == ["200": 4, "503": 2], "\(held)")
        #expect(WebGatewayTests.counter(dir, "connections_refused") == 2)
        // All six closed now: the address has its four again.
        #expect(try await WebGatewayTests.get(port, "/state", directory: dir).status == 200)
        #expect(await locus.terminate().status == 0)
        #expect(Self.errorLines(locus).isEmpty, "\(Self.errorLines(locus))")
    }

    /// A client that accepts no bytes (a 4 KB receive buffer, never read) while its history
    /// waits is closed after write_timeout, and counted.
    @Test func aClientThatAcceptsNoBytesIsClosedAfterTheWriteTimeout() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let port = try MetricsTests.freePort()
        // A buffer large enough that the client is not cut off for falling behind first.
        let locus = try await Self.start(dir, port: port, replay: "speed: max, loop: true, start_delay: 1",
                                         web: ", write_timeout: 1, client_buffer: 268435456, client_queue: 1000000")
        defer { locus.kill9() }
        try await Task.sleep(for: .seconds(2))   // the history fills
        let held = try await Self.hostile(dir, port, ["hold", "--clients", "1", "--rcvbuf", "4096", "--hold", "7", "--state-every", "0"])
        #expect(held["closed"] as? Int == 1, "\(held)")
        #expect(WebGatewayTests.counter(dir, "write_timeouts") == 1)
        #expect(WebGatewayTests.counter(dir, "clients_cut_off") == 0)
        #expect(await locus.terminate().status == 0)
        #expect(Self.errorLines(locus).isEmpty, "\(Self.errorLines(locus))")
    }

    /// Issue 29, item 6: 100 clients open /events?history=1 (a full history: 5,000 events,
    /// about 2 MB) and never read. /state answers within a second all along, and the daemon's
    /// memory grows by tens of MB, not hundreds: the history is written to each client from
    /// shared buffers, not copied per client and per event. All are gone after they close.
    @Test func aFloodOfUnreadHistoryStreamsKeepsStateFastAndMemoryBounded() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let port = try MetricsTests.freePort()
        // The walk ten times over at full speed, once: the history is full within seconds.
        let walks = dir + "/walks.jsonl"
        let made = try await runToEnd(E2E.python, [E2E.repoRoot + "/tools/repeat_recording.py",
                                                   E2E.repoRoot + "/data/recordings/cerknica-walk.jsonl", walks, "10"], directory: dir)
        #expect(made.status == 0, "\(made.stderr)")
        // All 100 from 127.0.0.1: past max_streams_per_address (32), which a test of its own covers.
        let config = WebGatewayTests.config(dir, port: port, replay: "speed: max, start_delay: 1", web: ", max_streams_per_address: 1000")
            .replacingOccurrences(of: E2E.repoRoot + "/data/recordings/cerknica-walk.jsonl", with: walks)
        let locus = try await WebGatewayTests.start(dir, config)
        defer { locus.kill9() }
        #expect(await waitUntil(timeout: 30) { locus.stderr.contains("plugin=walk reason=finished") })
        try await Task.sleep(for: .seconds(1))
        let before = WebGatewayTests.rssMB(locus.process.processIdentifier)
        let flood = try Self.hostileProcess(dir, port, ["hold", "--clients", "100", "--hold", "5"])
        defer { flood.kill9() }
        var peak = before
        while flood.process.isRunning {
            peak = max(peak, WebGatewayTests.rssMB(locus.process.processIdentifier))
            try await Task.sleep(for: .milliseconds(200))
        }
        let held = (try? JSONSerialization.jsonObject(with: Data(flood.stdout.utf8)) as? [String: Any]) ?? [:]
        print("web gateway, 100 unread history streams: \(held), RSS \(before) MB before, \(peak) MB peak")
        #expect(held["opened"] as? Int == 100 && (held["answers"] as? [String: Int]) == ["200": 100], "\(held) \(flood.stderr)")
        #expect((held["state_answers"] as? Int ?? 0) >= 5 && held["state_failures"] as? Int == 0, "\(held)")
        #expect((held["state_max_ms"] as? Double ?? 1e9) < 1000, "\(held)")
        #expect(peak - before < 60, "RSS \(before) MB before, \(peak) MB at the peak")
        // Closed streams are noticed (at the latest by their next keep-alive, every 15 s).
        #expect(await waitUntil(timeout: 20) { WebGatewayTests.counter(dir, "clients_open") == 0 })
        #expect(await locus.terminate().status == 0)
    }

    static func hostileProcess(_ dir: String, _ port: Int, _ args: [String]) throws -> ChildProcess {
        try ChildProcess(E2E.python, [E2E.script("web_hostile.py")] + args + ["--port", "\(port)"], directory: dir)
    }

    /// Issue 29, item 11: stopping the daemon with an event stream, a WebSocket and an idle
    /// keep-alive connection open logs no error line (it logged "Waiting on child channel:
    /// CancellationError()" and "Server shutdown error: Already closed").
    @Test func aNormalStopLogsNoErrorLines() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let port = try MetricsTests.freePort()
        let locus = try await Self.start(dir, port: port, replay: "speed: 60, loop: true, start_delay: 1")
        defer { locus.kill9() }
        let sse = try WebGatewayTests.client(dir, ["sse", "--port", "\(port)", "--out", dir + "/sse.jsonl", "--ready-file", dir + "/sse.ready", "--max-wait", "30"])
        let ws = try WebGatewayTests.client(dir, ["ws", "--port", "\(port)", "--out", dir + "/ws.jsonl", "--ready-file", dir + "/ws.ready", "--max-wait", "30"])
        let idle = try Self.hostileProcess(dir, port, ["idle", "--max-wait", "30"])
        defer { sse.kill9(); ws.kill9(); idle.kill9() }
        #expect(await waitUntil(timeout: 10) {
            FileManager.default.fileExists(atPath: dir + "/sse.ready") && FileManager.default.fileExists(atPath: dir + "/ws.ready")
        }, "\(sse.stderr) \(ws.stderr)")
        try await Task.sleep(for: .seconds(1))
        let started = Date()
        #expect(await locus.terminate(timeout: 15).status == 0)
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(Self.errorLines(locus).isEmpty, "\(Self.errorLines(locus))")
    }
}

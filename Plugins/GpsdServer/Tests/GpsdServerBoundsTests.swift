import Foundation
import LocusCore
@testable import LocusGpsdServerPlugin
import LocusTestKit
import Testing

/// Every client is bounded in bytes and time; one past a bound is cut off and counted, and
/// the others (and the bus) go on.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct GpsdServerBoundsTests {
    @Test func clientsPastMaxClientsAreRefused() async throws {
        let server = try await RunningGpsdServer { $0.maxClients = 2 }
        defer { Task { await server.stop() } }
        let a = try LineClient(port: server.port), b = try LineClient(port: server.port)
        #expect(a.next("VERSION") != nil && b.next("VERSION") != nil)
        let c = try LineClient(port: server.port)
        #expect((c.next("ERROR")?["message"] as? String)?.hasPrefix("Too many clients") == true)
        #expect(c.closedByServer())
        #expect(server.counters.clientsRefused == 1 && server.counters.clientsOpen == 2)
        a.send("?VERSION;")
        #expect(a.next("VERSION") != nil)
    }

    @Test func aRequestPastMaxRequestBytesClosesTheClient() async throws {
        let server = try await RunningGpsdServer { $0.maxRequestBytes = 64 }
        defer { Task { await server.stop() } }
        let client = try LineClient(port: server.port)
        _ = client.next("VERSION")
        client.send("?WATCH={\"device\":\"" + String(repeating: "x", count: 100))
        #expect((client.next("ERROR")?["message"] as? String)?.hasPrefix("Request too long") == true)
        #expect(client.closedByServer())
        #expect(server.counters.requestsTooLong == 1)
    }

    @Test func slowRequestsAndIdleClientsAreClosed() async throws {
        let server = try await RunningGpsdServer {
            $0.requestTimeout = 0.5
            $0.idleTimeout = 1
        }
        defer { Task { await server.stop() } }
        let partial = try LineClient(port: server.port)
        partial.send("?WATCH={\"enable\":")
        let idle = try LineClient(port: server.port)
        let watching = try LineClient(port: server.port)
        watching.send("?WATCH={\"enable\":true};")
        #expect(watching.next("WATCH") != nil)
        #expect(partial.closedByServer(timeout: 3))
        #expect(idle.closedByServer(timeout: 3))
        #expect(server.counters.requestTimeouts == 1 && server.counters.idleClosed == 1)
        // A watching client is never idle.
        #expect(!watching.closedByServer(timeout: 1.5))
        #expect(server.counters.clientsOpen == 1)
    }

    /// A client that stops reading is cut off at client_buffer; a reading client gets every
    /// report, and the sink takes every message as it comes. (About 2,500 reports a second in
    /// bursts of 25: the kernel holds at most ~16 KiB for a client, so what a reader has not
    /// taken yet waits in client_buffer, and this test's reader, line by line in a debug build,
    /// is slower than gpspipe.)
    @Test func aSlowReaderIsCutOffAndTheOthersGetEverything() async throws {
        let server = try await RunningGpsdServer { $0.clientBuffer = 65_536 }
        defer { Task { await server.stop() } }
        let slow = try LineClient(port: server.port, receiveBuffer: 4096)
        slow.send("?WATCH={\"enable\":true};")
        let fast = try LineClient(port: server.port)
        fast.send("?WATCH={\"enable\":true};")
        #expect(fast.next("WATCH") != nil)
        #expect(await waitUntil(timeout: 5) { server.counters.clientsWatching == 2 })
        let total = 5_000
        let reader = Task.detached { () -> Int in
            var n = 0
            while n < total, let line = fast.line(timeout: 10) {
                if line.contains("\"class\":\"TPV\"") { n += 1 }
            }
            return n
        }
        for batch in 0..<(total / 25) {
            for i in 0..<25 {
                server.send(sampleFix(lat: Double(batch * 25 + i) / 1e6), topic: "obs.fix.gps0", at: Double(batch * 25 + i))
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        let received = await reader.value
        let c = server.counters
        #expect(c.droppedServerBusy == 0)
        #expect(received == total, "the reading client got \(received) of \(total) TPVs")
        #expect(c.clientsCutOff == 1 && c.droppedSlowClient >= 1)
        #expect(slow.closedByServer())
        #expect(c.fixesTaken == total)
    }

    @Test func aClientThatAcceptsNothingIsClosedAfterWriteTimeout() async throws {
        let server = try await RunningGpsdServer {
            $0.clientBuffer = 67_108_864
            $0.writeTimeout = 0.5
        }
        defer { Task { await server.stop() } }
        let stuck = try LineClient(port: server.port, receiveBuffer: 4096)
        stuck.send("?WATCH={\"enable\":true};")
        #expect(await waitUntil(timeout: 5) { server.counters.clientsWatching == 1 })
        var sent = 0
        while server.counters.writeTimeouts == 0 && sent < 200_000 {
            for _ in 0..<1000 { server.send(sampleFix(), topic: "obs.fix.gps0", at: Double(sent)); sent += 1 }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(await waitUntil(timeout: 5) { server.counters.writeTimeouts == 1 })
        #expect(await waitUntil(timeout: 5) { server.counters.clientsOpen == 0 })
        #expect(server.counters.droppedSlowClient >= 1)
    }

    @Test func configRefusesAnOpenAddressAndRunReportsABusyPort() async throws {
        var config = GpsdServerConfiguration()
        config.listen = "0.0.0.0:2947"
        #expect(throws: ConfigValueError.self) { try GpsdServerPlugin.make(config) }
        config.insecure = true
        #expect(throws: Never.self) { try GpsdServerPlugin.make(config) }

        let first = try await RunningGpsdServer()
        defer { Task { await first.stop() } }
        config.listen = "127.0.0.1:\(first.port)"
        config.insecure = false
        let second = try GpsdServerPlugin.make(config)
        let (stream, _) = AsyncStream<BusMessage>.makeStream()
        await #expect {
            try await second.run(messages: stream, context: PluginHarness(id: "gpsd2").context)
        } throws: { error in
            "\(error)".contains("cannot listen on 127.0.0.1:\(first.port): port \(first.port) is in use, probably by gpsd")
                && "\(error)".contains("listen of gpsd-server sink 'gpsd2'")
        }
    }
}

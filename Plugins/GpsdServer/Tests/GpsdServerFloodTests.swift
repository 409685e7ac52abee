import Foundation
import LocusCore
@testable import LocusGpsdServerPlugin
import LocusTestKit
import Testing

/// Issue 49 item 1: clients that watch and never read must not lock the others out. The
/// kernel's socket buffers would take a non-reader's reports for a long time (megabytes on
/// loopback), so the server bounds them too, cuts off and counts a watcher that accepts
/// nothing, limits connections per address, and makes room for a new client by evicting the
/// longest-stalled one.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct GpsdServerFloodTests {
    static let watch = "?WATCH={\"enable\":true,\"json\":true};"

    /// Publishes gps0 fixes at `rate` a second until cancelled (a fast receiver: what the
    /// kernel takes for a non-reader, some 170 KiB on loopback, fills in half a second instead
    /// of two minutes).
    static func feed(_ server: RunningGpsdServer, rate: Int) -> Task<Void, Never> {
        Task.detached {
            var n = 0
            while !Task.isCancelled {
                for _ in 0..<(rate / 20) {
                    server.send(sampleFix(lat: 44 + Double(n % 1000) / 1e5), topic: "obs.fix.gps0", at: 1_700_000_000 + Double(n) / Double(rate))
                    n += 1
                }
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    /// 64 watchers (max_clients) that never read; write_timeout long, so a newcomer gets in
    /// only because the server evicts the longest-stalled one, not because one timed out.
    @Test func aReaderGetsInWhileMaxClientsWatchersNeverRead() async throws {
        let server = try await RunningGpsdServer(settings: ["max_clients_per_address": 64, "write_timeout": 60, "client_buffer": 8_388_608])
        defer { Task { await server.stop() } }
        let feeder = Self.feed(server, rate: 300)
        defer { feeder.cancel() }
        var stalled: [LineClient] = []
        for _ in 0..<64 {
            let c = try LineClient(port: server.port)
            c.send(Self.watch)
            stalled.append(c)
        }
        #expect(await waitUntil(timeout: 10) { server.counters.clientsWatching == 64 })
        // Four seconds of reports: more than twice what the kernel takes for each.
        try await Task.sleep(for: .seconds(4))
        let reader = try LineClient(port: server.port)
        let greeting = reader.report()
        #expect(greeting?["class"] as? String == "VERSION", "\(String(describing: greeting))")
        reader.send(Self.watch)
        #expect(reader.next("TPV", timeout: 5) != nil)
        #expect(server.count("clients_evicted") == 1)
        #expect(server.counters.clientsRefused == 0)
        // One more newcomer: another stalled watcher goes, the reader stays.
        let second = try LineClient(port: server.port)
        second.send(Self.watch)
        #expect(second.next("TPV", timeout: 5) != nil)
        #expect(reader.next("TPV", timeout: 5) != nil)
        #expect(server.count("clients_evicted") == 2)
        withExtendedLifetime(stalled) {}
    }

    /// The same flood with a short write_timeout: every non-reader is cut off and counted,
    /// and what each could hold is bounded, the kernel's share included.
    @Test func watchersThatNeverReadAreCutOffAndCounted() async throws {
        let server = try await RunningGpsdServer(settings: ["max_clients_per_address": 64, "write_timeout": 1, "client_buffer": 65_536])
        defer { Task { await server.stop() } }
        let feeder = Self.feed(server, rate: 1000)
        defer { feeder.cancel() }
        var stalled: [LineClient] = []
        for _ in 0..<64 {
            let c = try LineClient(port: server.port)
            c.send(Self.watch)
            stalled.append(c)
        }
        let reader = Task.detached { () -> Bool in
            // A real client arrives while they are all there and keeps reading.
            try? await Task.sleep(for: .seconds(1))
            guard let c = try? LineClient(port: server.port) else { return false }
            c.send(Self.watch)
            var tpvs = 0
            while tpvs < 50, let r = c.next("TPV", timeout: 5) { if r["device"] as? String == "gps0" { tpvs += 1 } }
            return tpvs == 50
        }
        #expect(await reader.value)
        #expect(await waitUntil(timeout: 20) {
            let c = server.counters
            return c.writeTimeouts + c.clientsCutOff + Int(server.count("clients_evicted")) == 64
        }, "\(server.counters)")
        #expect(server.counters.clientsOpen <= 1)
        #expect(server.counters.droppedSlowClient > 0)
        for c in stalled { #expect(c.closedByServer(timeout: 1)) }
    }

    /// max_clients_per_address: one more from the same address is refused (and counted) while
    /// another address is still served.
    @Test func connectionsPastMaxClientsPerAddressAreRefused() async throws {
        let server = try await RunningGpsdServer(settings: ["max_clients_per_address": 2])
        defer { Task { await server.stop() } }
        let a = try LineClient(port: server.port), b = try LineClient(port: server.port)
        #expect(a.next("VERSION") != nil && b.next("VERSION") != nil)
        let c = try LineClient(port: server.port)
        #expect((c.next("ERROR")?["message"] as? String)?.hasPrefix("Too many clients from 127.0.0.1") == true)
        #expect(c.closedByServer())
        let other = try LineClient(port: server.port, from: "127.0.0.2")
        #expect(other.next("VERSION") != nil)
        #expect(server.count("clients_refused_per_address") == 1)
        #expect(server.counters.clientsOpen == 3)
        a.send("?VERSION;")
        #expect(a.next("VERSION") != nil)
    }
}

import Foundation
import Synchronization
import LocusCore
@testable import LocusGpsdServerPlugin
import LocusTestKit
import Testing

/// Issue 49 item 1, the first seconds of a flood: before a non-reader's own receive buffer is
/// full, no byte waits in Locus for it, so it is not "stalled"; but the window its kernel
/// advertises shrinks by what it leaves unread (TCP_INFO tcpi_snd_wnd). A newcomer to a full
/// server takes the place of the watcher that left the most unread, never of a prompt reader.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct GpsdServerUnreadTests {
    static let watch = GpsdServerFloodTests.watch

    /// Eight watchers (max_clients) from eight addresses that never read, for a second and a
    /// half of reports: their kernels still take every byte, so none is stalled; a reader
    /// gets in all the same, by evicting one. 200 reports a second, so that the windows fall
    /// within the test (at a receiver's 1 Hz they fall 4 KiB in about 30 s:
    /// bench/gpsd-flood-soak.sh; at 20 a second, for 8 s, they did not fall at all).
    @Test func aReaderGetsInBeforeAnyNonReaderStalls() async throws {
        let server = try await RunningGpsdServer(settings: ["max_clients": 8, "write_timeout": 60, "client_buffer": 8_388_608])
        defer { Task { await server.stop() } }
        let feeder = GpsdServerFloodTests.feed(server, rate: 200)
        defer { feeder.cancel() }
        var idle: [LineClient] = []
        for i in 0..<8 {
            let c = try LineClient(port: server.port, from: "127.0.0.\(2 + i)")
            c.send(Self.watch)
            idle.append(c)
        }
        #expect(await waitUntil(timeout: 5) { server.counters.clientsWatching == 8 })
        try await Task.sleep(for: .milliseconds(1500))
        let reader = try LineClient(port: server.port)
        let greeting = reader.report()
        #expect(greeting?["class"] as? String == "VERSION", "\(String(describing: greeting))")
        reader.send(Self.watch)
        #expect(reader.next("TPV", timeout: 3) != nil)
        #expect(server.count("clients_evicted") == 1)
        #expect(server.counters.clientsRefused == 0)
        withExtendedLifetime(idle) {}
    }

    /// Eight watchers that read every report at once: a newcomer is refused, none is evicted.
    @Test func aNewcomerNeverEvictsPromptReaders() async throws {
        let server = try await RunningGpsdServer(settings: ["max_clients": 8, "write_timeout": 60])
        defer { Task { await server.stop() } }
        let feeder = GpsdServerFloodTests.feed(server, rate: 200)
        defer { feeder.cancel() }
        // Threads, not tasks: a blocking reader must not hold one of the few pool threads.
        let stop = Date().addingTimeInterval(4)
        let counts = Mutex([Int]())
        let port = server.port
        for i in 0..<8 {
            Thread.detachNewThread {
                var tpvs = 0
                if let c = try? LineClient(port: port, from: "127.0.0.\(2 + i)") {
                    c.send(Self.watch)
                    while Date() < stop, let r = c.report(timeout: 1) { if r["class"] as? String == "TPV" { tpvs += 1 } }
                }
                counts.withLock { $0.append(tpvs) }
            }
        }
        #expect(await waitUntil(timeout: 5) { server.counters.clientsWatching == 8 })
        try await Task.sleep(for: .milliseconds(1500))
        let late = try LineClient(port: server.port)
        let answer = late.report()
        #expect(answer?["class"] as? String == "ERROR", "\(String(describing: answer))")
        #expect(server.count("clients_evicted") == 0)
        #expect(server.counters.clientsRefused == 1)
        #expect(await waitUntil(timeout: 5) { counts.withLock { $0.count } == 8 })
        let tpvs = counts.withLock { $0 }
        #expect(tpvs.allSatisfy { $0 > 100 }, "\(tpvs)")
    }

    /// The estimate: the window's fall from its largest (it grows as the peer's buffer tunes,
    /// which is not a fall), plus our unsent bytes; a kernel without tcpi_snd_wnd reads 0.
    @Test func theEstimateIsTheWindowsFallPlusWhatWeHaveNotSent() {
        var b = GpsdPeerBacklog()
        b.update(window: 65_536, notSent: 0)
        b.update(window: 82_944, notSent: 0)
        #expect(b.unread == 0)
        b.update(window: 78_848, notSent: 0)
        #expect(b.unread == 4_096)
        b.update(window: 0, notSent: 26_176)
        #expect(b.unread == 82_944 + 26_176)
        var old = GpsdPeerBacklog()
        old.update(window: 0, notSent: 500)
        #expect(old.unread == 500)
    }
}

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

    /// A flood at a receiver's pace, the first seconds: eight watchers (max_clients) that never
    /// read, four of them from 127.0.0.1 (max_clients_per_address 4), at 20 reports a second,
    /// so no window has fallen and none is stalled or quiet. A reader from 127.0.0.1 gets in at
    /// once all the same, in the place of the oldest watcher of its address, and one from
    /// another address in the place of the oldest watcher overall; neither newcomer is evicted
    /// by the other (bench/gpsd-flood-soak.sh: at 1 Hz a gpspipe used to be refused for ~30 s).
    @Test func aNewcomerTakesTheOldestUnprovenPlaceWhenNothingElseIsEvictable() async throws {
        let server = try await RunningGpsdServer(settings: ["max_clients": 8, "max_clients_per_address": 4, "write_timeout": 60,
                                                            "client_buffer": 8_388_608])
        defer { Task { await server.stop() } }
        let feeder = GpsdServerFloodTests.feed(server, rate: 20)
        defer { feeder.cancel() }
        var idle: [LineClient] = []
        for i in 0..<8 {
            let c = try LineClient(port: server.port, from: i < 4 ? "127.0.0.1" : "127.0.0.\(i)")
            c.send(Self.watch)
            idle.append(c)
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(await waitUntil(timeout: 5) { server.counters.clientsWatching == 8 })
        try await Task.sleep(for: .milliseconds(1200))
        let local = try LineClient(port: server.port, from: "127.0.0.1")
        let greeting = local.report()
        #expect(greeting?["class"] as? String == "VERSION", "\(String(describing: greeting))")
        local.send(Self.watch)
        #expect(local.next("TPV", timeout: 3) != nil)
        #expect(idle[0].closedByServer(timeout: 2), "the oldest watcher of 127.0.0.1 gives its place")
        try await Task.sleep(for: .milliseconds(1100))
        let remote = try LineClient(port: server.port, from: "127.0.0.20")
        #expect(remote.report()?["class"] as? String == "VERSION")
        remote.send(Self.watch)
        #expect(remote.next("TPV", timeout: 3) != nil)
        #expect(idle[1].closedByServer(timeout: 2), "then the oldest watcher overall")
        #expect(local.next("TPV", timeout: 3) != nil)
        #expect(server.count("clients_evicted") == 2)
        #expect(server.counters.clientsRefused == 0 && server.counters.clientsRefusedPerAddress == 0)
        withExtendedLifetime(idle) {}
    }

    /// Eight watchers that read every report at once and have taken more than their kernels
    /// could hold unread: a newcomer is refused, none is evicted.
    @Test func aNewcomerNeverEvictsProvenReaders() async throws {
        let server = try await RunningGpsdServer(settings: ["max_clients": 8, "write_timeout": 60])
        defer { Task { await server.stop() } }
        let feeder = GpsdServerFloodTests.feed(server, rate: 1000)
        defer { feeder.cancel() }
        // Threads, not tasks: a blocking reader must not hold one of the few pool threads.
        let stop = Mutex(false)
        let taken = Mutex([Int](repeating: 0, count: 8))
        let counts = Mutex([Int]())
        let port = server.port
        for i in 0..<8 {
            Thread.detachNewThread {
                var tpvs = 0
                if let c = try? LineClient(port: port, from: "127.0.0.\(2 + i)") {
                    c.send(Self.watch)
                    while !stop.withLock({ $0 }), let l = c.line(timeout: 1) {
                        taken.withLock { $0[i] += l.utf8.count + 2 }
                        if l.contains("\"class\":\"TPV\"") { tpvs += 1 }
                    }
                }
                counts.withLock { $0.append(tpvs) }
            }
        }
        #expect(await waitUntil(timeout: 5) { server.counters.clientsWatching == 8 })
        // Proven: more than twice the largest window (133,120 bytes on loopback) plus 16 KiB.
        #expect(await waitUntil(timeout: 20) { taken.withLock { $0.allSatisfy { $0 > 400_000 } } }, "\(taken.withLock { $0 })")
        let late = try LineClient(port: server.port)
        let answer = late.report()
        #expect(answer?["class"] as? String == "ERROR", "\(String(describing: answer))")
        #expect(server.count("clients_evicted") == 0)
        #expect(server.counters.clientsRefused == 1)
        stop.withLock { $0 = true }
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

    /// Proven a reader: acknowledged more than twice its largest window plus our send buffer
    /// (160 KiB at least), and leaving no more than a few reports unread now.
    @Test func aReaderIsProvenOnceItTookMoreThanItsKernelCouldHold() {
        var b = GpsdPeerBacklog()
        b.update(window: 65_536, notSent: 0, acknowledged: 150_000)
        #expect(!b.proven)
        b.update(window: 65_536, notSent: 0, acknowledged: 170_000)
        #expect(b.proven)
        b.update(window: 133_120, notSent: 0, acknowledged: 200_000)
        #expect(!b.proven, "a larger window means a larger buffer that could hold it all")
        b.update(window: 133_120, notSent: 0, acknowledged: 290_000)
        #expect(b.proven)
        b.update(window: 120_000, notSent: 0, acknowledged: 900_000)
        #expect(!b.proven, "13 KB unread now")
    }
}

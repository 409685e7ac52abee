import Foundation
import LocusCore
@testable import LocusGpsdPlugin
import LocusTestKit
import Testing

/// The source against a real gpsd, run by gpsfake (Debian package gpsd-clients) on a free port.
@Suite(.serialized, .enabled(if: GpsFake.isInstalled, "gpsfake is not installed (Debian package gpsd-clients)"))
struct GpsdLiveTests {
    /// `maxTimeError` 0 by default: the logs are years old, which the date check would flag
    /// against the host clock; the tests of that check turn it on.
    func startSource(_ harness: Harness, port: Int, noDataTimeout: Double = 30, maxTimeError: Double = 0,
                     statistics: GpsdStatistics) -> Task<Void, any Error> {
        let source = GpsdSource(id: harness.context.id,
                                configuration: GpsdConfiguration.with {
                                    $0.port = port; $0.reconnectMax = 0.5; $0.noDataTimeout = noDataTimeout; $0.maxTimeError = maxTimeError
                                },
                                statistics: statistics)
        let context = harness.context
        return Task { try await source.run(context: context) }
    }

    /// The states after the `disconnected` the source reports if it tried before gpsd listened.
    static func afterStartup(_ states: [PluginStatus.State]) -> [PluginStatus.State] {
        Array(states.drop { $0 == .disconnected })
    }

    /// Cancels the source and checks it returns promptly.
    func stop(_ task: Task<Void, any Error>) async {
        let start = ContinuousClock.now
        task.cancel()
        _ = await task.result
        #expect(ContinuousClock.now - start < .seconds(1), "source took \(ContinuousClock.now - start) to stop")
    }

    /// What a source received from gpsd for one pass of gpsfake over a log.
    struct Run {
        var harness: Harness
        var statistics: GpsdStatistics
    }

    /// Runs a source against gpsfake's gpsd feeding `log` once, and stops both: waits until
    /// the source watches, lets every sentence through, waits until `complete` holds for what
    /// was published (and a second more, for what follows the last TPV), then stops gpsd and
    /// checks the source saw it go. nil (with the issue recorded) if the source never connected.
    func run(_ log: URL, maxTimeError: Double = 0, complete: (Harness) throws -> Bool) async throws -> Run? {
        let port = freePort()
        let gpsfake = try GpsFake(log: log, port: port, stepped: true, once: true)
        let harness = Harness(id: "gps0")
        let stats = GpsdStatistics()
        let task = startSource(harness, port: port, maxTimeError: maxTimeError, statistics: stats)
        // Connected and watching: VERSION, DEVICES and WATCH have come back.
        let watching = await waitUntil(timeout: 20) { harness.statuses.states.contains(.connected) && stats.counters.lines >= 3 }
        guard watching else {
            await stop(task); await gpsfake.stop()
            Issue.record("source did not connect to gpsfake's gpsd: \(harness.statuses.all); gpsfake: \(gpsfake.stderrTail())")
            return nil
        }
        // gpsd opens the pseudo-terminal when the client watches; gpsfake itself allows 1.4 s.
        try await Task.sleep(nanoseconds: 1_500_000_000)
        // One newline per sentence; more than the log has lines is harmless.
        gpsfake.release(try Fixtures.lines(log.lastPathComponent).count + 1)
        let all = try await waitUntil(timeout: 20) { try complete(harness) }
        let arrived = try harness.fixes().count
        #expect(all, "not everything arrived within 20 s: \(arrived) fixes; statuses \(harness.statuses.all); counters \(stats.counters); gpsfake: \(gpsfake.stderrTail())")
        // Let anything after the last TPV (a SKY, or a fix too many) arrive, then stop gpsd.
        try await Task.sleep(nanoseconds: 1_000_000_000)
        await gpsfake.stop()
        #expect(await waitUntil(timeout: 5) { harness.statuses.states.last == .disconnected })
        await stop(task)
        #expect(stats.counters.malformed == 0)
        return Run(harness: harness, statistics: stats)
    }

    @Test(.timeLimit(.minutes(1)))
    func publishesTheFixesOfGpsdsTPVsForALog() async throws {
        let expected = ExpectedFix.list(from: try Fixtures.jsonObjects("gr8013-w.log.chk"))
        #expect(expected.count == 7)
        guard let run = try await run(Fixtures.url("gr8013-w.log"), complete: { try $0.fixes().count >= expected.count })
        else { return }
        let harness = run.harness
        let fixes = try harness.fixes()
        #expect(fixes.count == expected.count, "published \(fixes.count) fixes, gpsd's .chk has \(expected.count) TPVs with time")
        for (i, (f, e)) in zip(fixes, expected).enumerated() {
            #expect(f.fix.source == "gps0")
            e.check(f.fix, time: f.time, "fix \(i)")
        }
        let skyExpected = try Fixtures.jsonObjects("gr8013-w.log.chk").filter { $0["class"] as? String == "SKY" }
        let views = try harness.skyViews()
        #expect(views.count == skyExpected.count)
        for (v, o) in zip(views, skyExpected) {
            #expect(v.sky.satellites.map(\.prn) == (o["satellites"] as! [[String: Any]]).map { $0["PRN"] as! Int })
        }
        #expect(Array(Self.afterStartup(harness.statuses.states).prefix(1)) == [.connected])
        #expect(harness.statuses.states.contains(.disconnected))
    }

    @Test(.timeLimit(.minutes(1)))
    func reconnectsWhenGpsdGoesAwayAndComesBack() async throws {
        let port = freePort()
        let log = Fixtures.url("tn204.log")
        let harness = Harness(id: "gps0")
        let stats = GpsdStatistics()
        // Nothing listens yet: the source reports disconnected once and keeps retrying.
        let task = startSource(harness, port: port, statistics: stats)
        #expect(await waitUntil(timeout: 5) { harness.statuses.states == [.disconnected] })
        #expect(harness.statuses.all.first?.1?.contains("refused") == true, "\(harness.statuses.all)")

        var gpsfake = try GpsFake(log: log, port: port, stepped: false, once: false, cycle: 0.02)
        let first = try await waitUntil(timeout: 20) { try harness.fixes().count >= 3 }
        #expect(first, "no fixes from the first gpsd: \(harness.statuses.all)")
        #expect(harness.statuses.states == [.disconnected, .connected])

        // gpsd goes away mid-stream.
        await gpsfake.stop()
        #expect(await waitUntil(timeout: 10) { harness.statuses.states.count >= 3 })
        #expect(harness.statuses.states == [.disconnected, .connected, .disconnected])
        #expect(harness.statuses.all.last?.1 == "gpsd closed the connection")
        let before = try harness.fixes().count

        // ... and comes back on the same port.
        gpsfake = try GpsFake(log: log, port: port, stepped: false, once: false, cycle: 0.02)
        let resumed = try await waitUntil(timeout: 20) { try harness.fixes().count >= before + 3 }
        #expect(resumed, "no fixes after gpsd came back: \(harness.statuses.all)")
        #expect(harness.statuses.states == [.disconnected, .connected, .disconnected, .connected])
        #expect(stats.counters.connections == 2)
        await stop(task)
        await gpsfake.stop()
        let all = try harness.fixes()
        #expect(all.allSatisfy { $0.fix.source == "gps0" })
        #expect(all.contains { $0.fix.mode == .threeD })
    }

    @Test(.timeLimit(.minutes(1)))
    func reportsNoDataWhenGpsdSendsNoTPV() async throws {
        let port = freePort()
        // Stepped and never released: gpsd is up and answers the watch, but no sentence arrives.
        let gpsfake = try GpsFake(log: Fixtures.url("tn204.log"), port: port, stepped: true, once: true)
        let harness = Harness(id: "gps0")
        let task = startSource(harness, port: port, noDataTimeout: 1, statistics: GpsdStatistics())
        let reported = await waitUntil(timeout: 20) { harness.statuses.states.contains(.noData) }
        #expect(reported, "\(harness.statuses.all)")
        #expect(Array(Self.afterStartup(harness.statuses.states).prefix(2)) == [.connected, .noData])
        // Data flows again: connected is reported again. (gpsd opens the pseudo-terminal up to
        // 1.4 s after the watch, and drops what arrived before: give it that time first.)
        try await Task.sleep(nanoseconds: 1_500_000_000)
        gpsfake.release(100)
        let again = await waitUntil(timeout: 15) { Self.afterStartup(harness.statuses.states).prefix(3) == [.connected, .noData, .connected] }
        #expect(again, "\(harness.statuses.all)")
        await stop(task)
        await gpsfake.stop()
    }
}

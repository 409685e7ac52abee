import Foundation
import LocusCore
import LocusNMEA
@testable import LocusNMEASerialPlugin
import LocusTestKit
import Testing

/// The source on a real pseudo-terminal made by socat (Debian package socat), fed with a gpsd
/// regression log line by line.
@Suite(.serialized, .enabled(if: PtyPair.isInstalled, "socat is not installed (Debian package socat)"))
struct NMEASerialPtyTests {
    static let log = "tn204.log"

    func start(_ harness: Harness, device: String, noDataTimeout: Double = 30, initCommands: [String] = [],
               statistics: NMEASerialStatistics = NMEASerialStatistics()) -> Task<Void, any Error> {
        let source = NMEASerialSource(
            id: harness.context.id,
            configuration: NMEASerialConfiguration.with { $0.device = device; $0.baud = 4800; $0.initCommands = initCommands; $0.noDataTimeout = noDataTimeout; $0.reconnectMax = 2 },
            statistics: statistics)
        let context = harness.context
        return Task { try await source.run(context: context) }
    }

    /// Cancels the source and checks it returns promptly.
    func stop(_ task: Task<Void, any Error>) async {
        let start = ContinuousClock.now
        task.cancel()
        _ = await task.result
        let took = ContinuousClock.now - start
        #expect(took < .milliseconds(500), "source took \(took) to stop")
    }

    @Test(.timeLimit(.minutes(1)))
    func publishesTheDecodersFixesAndReconnectsWhenThePtyComesBack() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var pair = try PtyPair(directory: dir)
        #expect(await pair.waitReady(), "socat made no pty links in \(dir)")
        let harness = Harness(id: "gps0")
        let stats = NMEASerialStatistics()
        let task = start(harness, device: pair.gps, statistics: stats)
        #expect(await waitUntil(timeout: 5) { harness.statuses.states == [.connected] }, "\(harness.statuses.all)")

        // 1. The log, paced line by line: the same observations as the decoder gives for its bytes.
        let lines = try Fixtures.lines(Self.log)
        let bytes = lines.flatMap { $0 }
        let open = try Fixtures.viaWire(Fixtures.decoded(bytes, finish: false))
        let flushed = try Fixtures.viaWire(Fixtures.decoded(bytes, finish: true))
        #expect(flushed.count > open.count, "finish gives the last epoch")
        let openFixes = open.filter { if case .fix = $0 { true } else { false } }.count
        #expect(openFixes >= 5, "the fixture gives only \(openFixes) fixes")
        try await pair.write(lines: lines)
        let arrived = try await waitUntil(timeout: 10) { try harness.observations().count >= open.count }
        let got = try harness.observations().count
        #expect(arrived, "\(got) of \(open.count) observations arrived")
        try await Task.sleep(nanoseconds: 200_000_000)
        #expect(try harness.observations() == open)
        #expect(stats.counters.bytes == bytes.count)

        // 2. The device disappears (socat exits, its ptys and links go): disconnected, and the
        // epoch that was open is published.
        let killed = ContinuousClock.now
        #expect(await pair.stop(), "socat did not exit on SIGTERM")
        #expect(!FileManager.default.fileExists(atPath: pair.gps), "socat left its link behind")
        print("nmea-serial: socat exited \(ContinuousClock.now - killed) after SIGTERM")
        #expect(await waitUntil(timeout: 3) { harness.statuses.states == [.connected, .disconnected] }, "\(harness.statuses.all)")
        let lostAfter = harness.statuses.time(1).map { $0 - killed }
        let reason = harness.statuses.all.last?.1 ?? ""
        print("nmea-serial: disconnected \(lostAfter.map { "\($0)" } ?? "?") after socat was stopped: \(reason)")
        #expect(!reason.isEmpty)
        #expect(try harness.observations() == flushed)

        // Long enough away for the backoff to reach reconnect_max (0.1 + 0.2 + 0.4 + 0.8 + 1.6 s).
        try await Task.sleep(nanoseconds: 3_500_000_000)
        #expect(harness.statuses.states == [.connected, .disconnected], "one status while the device stays away")

        // 3. The device comes back under the same name: connected within 2 s, and fixes resume.
        // The device's return is taken as the moment socat is started (a lower bound: its links
        // appear a few milliseconds later).
        let back = ContinuousClock.now
        pair = try PtyPair(directory: dir)
        #expect(await pair.waitReady(), "socat made no pty links in \(dir)")
        let linksSeen = ContinuousClock.now - back
        let reconnected = await waitUntil(timeout: 5) { harness.statuses.states.count >= 3 }
        #expect(reconnected && harness.statuses.states == [.connected, .disconnected, .connected], "\(harness.statuses.all)")
        if let at = harness.statuses.time(2) {
            print("nmea-serial: connected again \(at - back) after socat was restarted (links seen by the test after \(linksSeen))")
            #expect(at - back < .seconds(2), "connected \(at - back) after the device came back")
        }
        try await pair.write(lines: lines)
        let resumed = try await waitUntil(timeout: 10) { try harness.observations().count >= flushed.count + open.count }
        #expect(resumed, "no fixes after the device came back: \(harness.statuses.all)")
        try await Task.sleep(nanoseconds: 200_000_000)
        let all = try harness.observations()
        #expect(Array(all.dropFirst(flushed.count)) == open, "a fresh decoder for the reopened device")
        #expect(stats.counters.opens == 2)
        #expect(stats.counters.decoder.framing.badChecksum == 0)

        await stop(task)
        await pair.stop()
    }

    /// Issue 17, item 1, live: epochs before the receiver's first date wait for it (up to
    /// `undated_hold` of its time) and are published dated; beyond that they are dropped with a
    /// status event; `date: system` dates a receiver that never sends a date.
    @Test(.timeLimit(.minutes(1)))
    func undatedEpochsWaitForADateOrAreDroppedWithAStatusAndSystemDatesThem() async throws {
        func gga(_ seconds: Int) -> [UInt8] {
            let hh = seconds / 3600 % 24, mm = seconds / 60 % 60, ss = seconds % 60
            return Array(nmea(String(format: "GPGGA,%02d%02d%02d.000,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,", hh, mm, ss)).utf8)
        }
        func run(_ configure: @escaping (inout NMEASerialConfiguration) -> Void, lines: [[UInt8]], expectFixes: Int) async throws -> Harness {
            let dir = temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let pair = try PtyPair(directory: dir)
            #expect(await pair.waitReady(), "socat made no pty links in \(dir)")
            let harness = Harness(id: "gps0")
            let source = NMEASerialSource(id: "gps0", configuration: NMEASerialConfiguration.with {
                $0.device = pair.gps; $0.baud = 4800; configure(&$0)
            })
            let context = harness.context
            let task = Task { try await source.run(context: context) }
            #expect(await waitUntil(timeout: 5) { harness.statuses.states.first == .connected })
            try await pair.write(lines: lines)
            let arrived = try await waitUntil(timeout: 5) { try harness.fixCount() >= expectFixes }
            #expect(arrived, "\((try? harness.observations()) ?? [])")
            try await Task.sleep(nanoseconds: 200_000_000)
            await stop(task)
            await pair.stop()
            return harness
        }
        // 1. Five GGA-only epochs, then the receiver's first RMC: all six dated, in order.
        let rmc = Array(nmea("GPRMC,120005.000,A,4807.038,N,01131.000,E,0.1,0.0,150325,,,A").utf8)
        let waited = try await run({ _ in }, lines: (43200..<43205).map(gga) + [gga(43205), rmc, gga(43206)], expectFixes: 6)
        let times = try waited.observations().compactMap { if case .fix(_, let t) = $0 { t.iso8601 } else { nil } }
        #expect(Array(times.prefix(6)) == (0..<6).map { "2025-03-15T12:00:0\($0).000Z" })
        // 2. No date within undated_hold (2 s of receiver time): dropped, counted, and said on status.
        let dropped = try await run({ $0.undatedHold = 2 }, lines: (43200..<43210).map(gga), expectFixes: 0)
        #expect(await waitUntil(timeout: 3) { dropped.statuses.all.contains { $0.1?.contains("without a date dropped") == true } },
                "\(dropped.statuses.all)")
        #expect(try dropped.fixCount() == 0)
        // 3. date: system: a GGA-only receiver's fixes get the clock's day.
        let now = Date().timeIntervalSince1970
        let tod = Int(now) % 86_400
        let system = try await run({ $0.date = .system }, lines: [gga(tod), gga(tod + 1), gga(tod + 2)], expectFixes: 2)
        let first = try #require(try system.observations().compactMap { if case .fix(_, let t) = $0 { t } else { nil } }.first)
        #expect(abs(Double(first.milliseconds) / 1000 - Double(Int(now))) < 2, "\(first.iso8601)")
    }

    @Test(.timeLimit(.minutes(1)))
    func aRemovedDevicePathIsADisconnectAndItsReturnAReconnect() async throws {
        // As udev does with /dev/serial/by-id links: the link goes, then comes back.
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let pair = try PtyPair(directory: dir)
        #expect(await pair.waitReady())
        let target = try FileManager.default.destinationOfSymbolicLink(atPath: pair.gps)
        let link = dir + "/by-id-gps"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let harness = Harness(id: "gps0")
        let task = start(harness, device: link)
        #expect(await waitUntil(timeout: 5) { harness.statuses.states == [.connected] }, "\(harness.statuses.all)")

        let removed = ContinuousClock.now
        try FileManager.default.removeItem(atPath: link)
        #expect(await waitUntil(timeout: 3) { harness.statuses.states == [.connected, .disconnected] }, "\(harness.statuses.all)")
        #expect(harness.statuses.all.last?.1 == "device \(link) was removed", "\(harness.statuses.all)")
        if let at = harness.statuses.time(1) { #expect(at - removed < .milliseconds(600), "noticed after \(at - removed)") }

        try await Task.sleep(nanoseconds: 2_500_000_000)
        let back = ContinuousClock.now
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        #expect(await waitUntil(timeout: 3) { harness.statuses.states == [.connected, .disconnected, .connected] }, "\(harness.statuses.all)")
        if let at = harness.statuses.time(2) {
            print("nmea-serial: link removal noticed after \(harness.statuses.time(1).map { $0 - removed }.map { "\($0)" } ?? "?"), connected again \(at - back) after the link returned")
            #expect(at - back < .seconds(2))
        }
        // Data flows on the reopened device.
        let lines = try Fixtures.lines(Self.log)
        try await pair.write(lines: lines)
        let expected = try Fixtures.viaWire(Fixtures.decoded(lines.flatMap { $0 }, finish: false))
        #expect(try await waitUntil(timeout: 10) { try harness.observations().count >= expected.count })
        #expect(try harness.observations() == expected)
        await stop(task)
        await pair.stop()
    }

    @Test(.timeLimit(.minutes(1)))
    func sendsInitCommandsAndReportsNoData() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let pair = try PtyPair(directory: dir)
        #expect(await pair.waitReady())
        try pair.openFeed()
        let harness = Harness(id: "gps0")
        let task = start(harness, device: pair.gps, noDataTimeout: 0.5, initCommands: ["$PMTK220,1000*1F", "$PUBX,40,GSV,0,0,0,0*59"])
        #expect(await waitUntil(timeout: 5) { harness.statuses.states == [.connected] }, "\(harness.statuses.all)")
        let expected = Array("$PMTK220,1000*1F\r\n$PUBX,40,GSV,0,0,0,0*59\r\n".utf8)
        let written = try pair.readBack(count: expected.count)
        #expect(written == expected, "\(String(decoding: written, as: UTF8.self))")

        // Open but silent: no_data once.
        #expect(await waitUntil(timeout: 3) { harness.statuses.states == [.connected, .noData] }, "\(harness.statuses.all)")
        #expect(harness.statuses.all.last?.1?.contains("no complete NMEA sentence") == true)
        // Noise without a complete sentence does not count as data.
        try await pair.write(lines: [Array("garbage without a dollar\r\n$GPGGA,23014".utf8)])
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(harness.statuses.states == [.connected, .noData])
        // A sentence: connected again.
        try await pair.write(lines: try Fixtures.lines(Self.log).filter { $0.first == UInt8(ascii: "$") }.prefix(2).map { $0 })
        #expect(await waitUntil(timeout: 3) { harness.statuses.states == [.connected, .noData, .connected] }, "\(harness.statuses.all)")
        await stop(task)
        await pair.stop()
    }

    @Test(.timeLimit(.minutes(1)))
    func missingDeviceIsReportedOnceAndShutdownIsPrompt() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let harness = Harness(id: "gps0")
        let task = start(harness, device: dir + "/gps")
        #expect(await waitUntil(timeout: 3) { !harness.statuses.states.isEmpty })
        try await Task.sleep(nanoseconds: 800_000_000)
        #expect(harness.statuses.states == [.disconnected])
        #expect(harness.statuses.all.first?.1?.contains("No such file or directory") == true, "\(harness.statuses.all)")
        await stop(task)
    }

    @Test(.timeLimit(.minutes(1)))
    func aFileThatIsNotATerminalIsReported() async throws {
        let harness = Harness(id: "gps0")
        let task = start(harness, device: "/dev/null")
        #expect(await waitUntil(timeout: 3) { !harness.statuses.states.isEmpty })
        #expect(harness.statuses.states == [.disconnected])
        #expect(harness.statuses.all.first?.1?.contains("not a terminal device") == true, "\(harness.statuses.all)")
        await stop(task)
    }
}

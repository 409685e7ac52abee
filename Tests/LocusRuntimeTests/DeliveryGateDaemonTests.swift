import Foundation
import LocusCore
import Testing
@testable import LocusRuntime

/// Back-pressure through a real daemon (hub, inproc sockets, runners): a source that waits for
/// consumers, as `replay` does, loses nothing to a slow sink however far ahead it could run; a
/// live source that does not wait loses messages past the buffer, and every one is counted.
@Suite(.serialized) struct DeliveryGateDaemonTests {
    static let pings = 1500

    /// A feeder, a service that answers each ping with an event, a recorder that takes ~0.3 ms
    /// per message; subscriptions hold 64 messages.
    static func config(_ bench: CommandTestBench, paced: Bool) -> String {
        """
        sources:
          - type: test-feeder
            id: feed
            bench: \(bench.id)
            paced: \(paced)
        services:
          - type: test-counter
            id: tally
            bench: \(bench.id)
        sinks:
          - type: test-recorder
            id: slow
            bench: \(bench.id)
            topics: ["test."]
            slow: 300
        """
    }

    static let smallBuffers = "subscription_buffer: 64"

    @Test func aSourceThatWaitsLosesNothingToASlowSink() async throws {
        let bench = CommandTestBench()
        let d = try await RunningDaemon.start(Self.config(bench, paced: true), hub: Self.smallBuffers)
        bench.ping(1...Self.pings)
        // Every ping, and the service's event for each, in order.
        let all = try await d.waitUntil(timeout: 30) { bench.recorded.count >= 2 * Self.pings }
        #expect(all, "recorded \(bench.recorded.count) of \(2 * Self.pings)")
        let pings = bench.recorded.filter { $0.envelope.producer == "feed" }.compactMap { $0.payload(CommandTestPlugins.TestPing.self)?.n }
        // Compared as counts and the first difference: a failure must stay readable.
        #expect(pings.count == Self.pings)
        #expect(pings.enumerated().first { $0.offset + 1 != $0.element } == nil, "out of order or missing: \(pings.prefix(100))")
        let seen = bench.counterEvents(from: "tally")
        #expect(seen.count == Self.pings)
        #expect(seen.enumerated().first { "seen \($0.offset + 1)" != $0.element } == nil, "\(seen.prefix(100))")
        let dropped = try await Self.dropped(d)
        #expect(dropped == ["slow": 0, "tally": 0])
        await d.stop()
    }

    @Test func aLiveSourceOverflowsTheBufferAndEveryLossIsCounted() async throws {
        let bench = CommandTestBench()
        let d = try await RunningDaemon.start(Self.config(bench, paced: false), hub: Self.smallBuffers)
        bench.ping(1...Self.pings)
        // Settled: what the recorder has and what its subscription dropped add up to all.
        var last = (recorded: -1, dropped: [String: Int]())
        let settled = try await d.waitUntil(timeout: 60) {
            let now = (recorded: bench.recorded.count, dropped: try await Self.dropped(d))
            defer { last = now }
            return now.recorded == last.recorded && now.dropped == last.dropped
                && now.recorded + (now.dropped["slow"] ?? 0) == 2 * Self.pings - (now.dropped["tally"] ?? 0)
        }
        #expect(settled, "recorded \(bench.recorded.count), dropped \(last.dropped), of \(2 * Self.pings)")
        #expect((last.dropped["slow"] ?? 0) > 0, "the test needs a sink that cannot keep up")
        await d.stop()
    }

    /// `slow_consumer` per plugin, from `locus ctl status`.
    static func dropped(_ d: RunningDaemon) async throws -> [String: Int] {
        guard case .array(let plugins)? = try await d.result("status")["plugins"] else { return [:] }
        var out: [String: Int] = [:]
        for p in plugins {
            if let id = p["plugin"]?.stringValue, let n = p["received"]?["dropped"]?["slow_consumer"]?.doubleValue {
                out[id] = Int(n)
            }
        }
        return out
    }
}

import Foundation
import LocusCore
import LocusFleet
import LocusNATS
@testable import LocusNATSPlugin
import LocusTestKit
import Testing

/// `nats` sources of one group on a real nats-server: the fleet's partitions are split between
/// them, each fix reaches exactly one server's bus, a server that leaves hands its partitions
/// (with their positions) to the others, and one that joins takes its share — still exactly once.
@Suite(.serialized) struct NATSGroupTests {
    final class Member {
        let source: NATSSource
        let harness: PluginHarness
        let task: Task<Void, Error>

        init(_ id: String, server: NATSServer, configure: (inout NATSSourceConfiguration) -> Void = { _ in }) {
            let config = NATSSourceConfiguration.with {
                $0.server.servers = [server.url]
                $0.subjects = ["locus.fixes.>"]
                $0.filter = "locus.fixes.*.>"
                $0.deviceTokens = [3]
                $0.group = "test"
                $0.partitions = 16
                $0.leaseTTL = 1
                $0.checkpointInterval = 0.2
                configure(&$0)
            }
            source = NATSSource(configuration: config, connection: NATSConnectionSettings(servers: [server.url], name: id), memberId: id)
            harness = PluginHarness(id: id)
            let (source, context) = (source, harness.context)
            task = Task { try await source.run(context: context) }
        }

        var counters: NATSSourceCounters { source.statistics.counters }

        /// Device to the event times of its fixes this member published.
        func fixes() throws -> [String: [Double]] {
            var out: [String: [Double]] = [:]
            for m in try harness.messages() { out[String(m.topic.dropFirst("obs.fix.".count)), default: []].append(m.time.seconds) }
            return out
        }
    }

    let devices = (0..<100).map { "van\($0)" }

    func publish(_ c: NATSConnection, round: Int) throws {
        for d in devices {
            let p = PartitionHash.partition(of: d, count: 16)
            let body = #"{"_type":"location","lat":52.5,"lon":13.4,"tst":\#(1_700_000_000 + round),"acc":5}"#
            _ = try c.publish("locus.fixes.\(p).\(d)", Array(body.utf8))
        }
    }

    /// Every device's fixes, over all members: each round exactly once, and each device on one member per round.
    func expectExactlyOnce(_ members: [Member], rounds: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        var all: [String: [Double]] = [:]
        for m in members { for (d, times) in try m.fixes() { all[d, default: []] += times } }
        for d in devices {
            #expect(all[d, default: []].sorted() == (0..<rounds).map { 1_700_000_000 + Double($0) }, "\(d)", sourceLocation: sourceLocation)
        }
    }

    func settled(_ members: [Member]) -> Bool {
        let owned = members.map(\.counters.partitionsOwned)
        return owned.reduce(0, +) == 16 && owned.max()! - owned.min()! <= 1
    }

    @Test func membersSplitThePartitionsAndHandThemOverExactlyOnce() async throws {
        let server = try NATSServer(directory: temporaryPath("nats"))
        try server.start()
        let writer = try NATSConnection(NATSConnectionSettings(servers: [server.url], name: "devices"))
        try writer.ensureStream(JetStreamStreamSpec(name: "LOCUS_FIXES", subjects: ["locus.fixes.>"]))
        var members = [Member("a", server: server), Member("b", server: server), Member("c", server: server)]
        #expect(await waitUntil(timeout: 15) { settled(members) }, "\(members.map(\.counters.partitionsOwned))")
        for round in 0..<3 { try publish(writer, round: round) }
        #expect(await waitUntil(timeout: 15) { members.map(\.counters.fixesPublished).reduce(0, +) == 300 })
        try expectExactlyOnce(members, rounds: 3)
        // Each device on one member only.
        let perMember = try members.map { Set(try $0.fixes().keys) }
        #expect(perMember[0].intersection(perMember[1]).isEmpty && perMember[1].intersection(perMember[2]).isEmpty)

        // b stops: it commits its positions and leaves; a and c take its partitions.
        members[1].task.cancel()
        try await members[1].task.value
        #expect(members[1].counters.partitionsOwned == 0)
        let remaining = [members[0], members[2]]
        #expect(await waitUntil(timeout: 15) { settled(remaining) }, "\(remaining.map(\.counters.partitionsOwned))")
        for round in 3..<5 { try publish(writer, round: round) }
        #expect(await waitUntil(timeout: 15) { members.map(\.counters.fixesPublished).reduce(0, +) == 500 })

        // d joins: the others release a share (positions first), d takes it.
        members.append(Member("d", server: server))
        let live = [members[0], members[2], members[3]]
        #expect(await waitUntil(timeout: 15) { settled(live) }, "\(live.map(\.counters.partitionsOwned))")
        #expect(members[0].counters.released + members[2].counters.released >= 4)
        for round in 5..<7 { try publish(writer, round: round) }
        #expect(await waitUntil(timeout: 15) { members.map(\.counters.fixesPublished).reduce(0, +) == 700 })
        try await Task.sleep(for: .milliseconds(500))
        try expectExactlyOnce(members, rounds: 7)
        #expect(members.map(\.counters.lost).reduce(0, +) == 0)
        for m in live { m.task.cancel(); try await m.task.value }
    }
}

import Foundation
import LocusCore
import LocusFleet
import LocusNATS
@testable import LocusNATSPlugin
import LocusTestKit
import Testing

/// The `nats` source against a real nats-server: OwnTracks positions from a stream become
/// `obs.fix.<device>`, garbage is counted by reason, and phones can publish through the
/// server's own MQTT port.
@Suite(.serialized) struct NATSSourceTests {
    func source(_ server: NATSServer, _ edit: (inout NATSSourceConfiguration) -> Void = { _ in }) -> NATSSource {
        let config = NATSSourceConfiguration.with { $0.server.servers = [server.url]; $0.start = .all; edit(&$0) }
        return NATSSource(configuration: config, connection: NATSConnectionSettings(servers: [server.url], name: "source-test"), memberId: "m")
    }

    static func ownTracks(lat: Double, lon: Double, tst: Int) -> [UInt8] {
        Array(#"{"_type":"location","lat":\#(lat),"lon":\#(lon),"tst":\#(tst),"acc":5}"#.utf8)
    }

    @Test func positionsBecomeFixesAndGarbageIsCountedAndSkipped() async throws {
        let server = try NATSServer(directory: temporaryPath("nats"))
        try server.start()
        let writer = try NATSConnection(NATSConnectionSettings(servers: [server.url], name: "writer"))
        try writer.ensureStream(JetStreamStreamSpec(name: "LOCUS_FIXES", subjects: ["owntracks.>"]))
        for i in 0..<10 {
            _ = try writer.publish("owntracks.alice.phone", Self.ownTracks(lat: 52.5 + Double(i) / 1000, lon: 13.4, tst: 1_700_000_000 + i))
        }
        _ = try writer.publish("owntracks.alice.phone", Array("not json".utf8))
        _ = try writer.publish("owntracks.alice.phone", Array(#"{"_type":"transition","event":"enter"}"#.utf8))
        _ = try writer.publish("owntracks.alice.phone", Array(#"{"_type":"location","lat":"x","lon":1,"tst":5}"#.utf8))
        _ = try writer.publish("owntracks.alice.phone", [UInt8](repeating: 0x20, count: 70_000))
        _ = try writer.publish("owntracks.lonely", Self.ownTracks(lat: 1, lon: 1, tst: 1_700_000_000))
        _ = try writer.publish("owntracks.bob.phone", Self.ownTracks(lat: 48.1, lon: 11.6, tst: 1_700_000_000))
        let s = source(server)
        let harness = PluginHarness(id: "fleet")
        let task = Task { try await s.run(context: harness.context) }
        #expect(await waitUntil(timeout: 10) { s.statistics.counters.messages == 16 })
        task.cancel()
        try await task.value
        let c = s.statistics.counters
        #expect(c.fixesPublished == 11)
        #expect(c.droppedNotJson == 1)
        #expect(c.ignored == 1)
        #expect(c.droppedWrongType == 1)
        #expect(c.droppedTooLarge == 1)
        #expect(c.droppedBadDevice == 1)
        #expect(c.devices == 2)
        #expect(c.lastSequence == 16)
        #expect(c.pending == 0)
        let fixes = try harness.messages().map(\.topic)
        #expect(fixes.filter { $0 == "obs.fix.alice-phone" }.count == 10)
        #expect(fixes.last == "obs.fix.bob-phone")
        let first = try #require(try harness.messages().first)
        #expect(first.time == EventTime(checkedSeconds: 1_700_000_000))
    }

    /// An OwnTracks phone (here mosquitto_pub) publishing to nats-server's MQTT port: the topic
    /// `owntracks/carol/phone` is the subject `owntracks.carol.phone`, which the stream keeps.
    @Test func phonesPublishThroughNATSsMQTTPort() async throws {
        let server = try NATSServer(directory: temporaryPath("nats"), mqtt: true)
        try server.start()
        let s = source(server)
        let harness = PluginHarness(id: "fleet")
        let task = Task { try await s.run(context: harness.context) }
        #expect(await waitUntil(timeout: 10) { s.statistics.counters.connects == 1 })
        let message = String(decoding: Self.ownTracks(lat: 40.4, lon: -3.7, tst: 1_700_000_100), as: UTF8.self)
        let publish = Process()
        publish.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_pub")
        publish.arguments = ["-h", "127.0.0.1", "-p", "\(server.mqttPort!)", "-q", "1", "-i", "carol-phone", "-t", "owntracks/carol/phone", "-m", message]
        try publish.run()
        publish.waitUntilExit()
        #expect(publish.terminationStatus == 0)
        #expect(await waitUntil(timeout: 10) { s.statistics.counters.fixesPublished == 1 })
        task.cancel()
        try await task.value
        #expect(try harness.messages().map(\.topic) == ["obs.fix.carol-phone"])
    }

    /// NATS's own partition mapping (`{{partition(n,1)}}`) puts a device where Locus's
    /// documented hash (FNV-1a 32 of the device id, mod n) says: a fleet can let the server route.
    @Test func natsServersPartitionMappingAgreesWithTheDocumentedHash() throws {
        let server = try NATSServer(directory: temporaryPath("nats"),
                                    extra: ["mappings { \"locus.in.*\": \"locus.fixes.{{partition(16,1)}}.{{wildcard(1)}}\" }"])
        try server.start()
        let c = try NATSConnection(NATSConnectionSettings(servers: [server.url], name: "mapper"))
        try c.ensureStream(JetStreamStreamSpec(name: "FIXES", subjects: ["locus.fixes.>"]))
        let devices = (0..<200).map { "van\($0)" }
        for d in devices { _ = try c.publish("locus.in.\(d)", Array("{}".utf8)) }
        let stored = try JetStreamPullConsumer(connection: c, stream: "FIXES", filter: "locus.fixes.>", start: .all).fetch(batch: 500, timeoutMs: 2000)
        #expect(stored.count == 200)
        for m in stored {
            let tokens = m.subject.split(separator: ".")
            #expect(Int(tokens[2]) == PartitionHash.partition(of: String(tokens[3]), count: 16), "\(m.subject)")
        }
    }
}

import Foundation
import LocusCore
import Testing
@testable import LocusBus

/// Issue 49, item 5: an outside publisher's payload is checked against its type's schema at
/// the hub, so a subscriber may trust what the schema says (an obs.nmea sentence is one line of
/// printable ASCII of at most 256 characters, from the source its topic names).
@Suite("Hub: outside payloads")
struct OutsidePayloadSchemaTests {
    static func nmea(_ sentence: String, source: String = "gps0", seq: Int) -> [UInt8] {
        EnvelopeCodec.encode(NMEASentence(source: source, sentence: sentence), producer: "intruder", seq: UInt64(seq), time: Samples.time)
    }

    @Test func forgedAndOversizedSentencesAreRefusedAndCounted() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let context = ZMQContext()
        let config = HubConfiguration(ingestEndpoints: [dir.endpoint("ingest.sock")], publishEndpoints: [dir.endpoint("publish.sock")],
                                      limits: .with { $0.maxMessageBytes = 1 << 20 })
        let hub = Hub(configuration: config, registry: .core, context: context, logger: quietLogger)
        try hub.start()
        defer { hub.stop() }
        let sub = try ZMQSocket(context: context, type: .sub)
        try sub.setOption(.linger(milliseconds: 0))
        try sub.subscribe("obs.")
        let token = SyncToken.make()
        try sub.subscribe(token)
        try sub.connect(dir.endpoint("publish.sock"))
        #expect(hub.waitForSubscriber(token: token, timeout: 5))
        let outlet = try SocketOutlet(context: context, highWaterMark: 0, logger: quietLogger)
        #expect(outlet.waitUntilReady(timeout: 5))
        // obs.fix on obs.probe: a topic outside the type's family names no source.
        let pub = try #require(try probedOutsidePublisher(context, ingest: dir.endpoint("ingest.sock"), heardBy: sub, probeTopic: "obs.probe"))

        let forged = "$GPGGA,1*00\r\n{\"class\":\"TPV\",\"device\":\"gps0\",\"mode\":3,\"lat\":0.0,\"lon\":0.0}\r\n{\"class\":\"DEVICE\",\"path\":\"/dev/evil\"}"
        try pub.send(topic: "obs.nmea.gps0", body: Self.nmea(forged, seq: 1))
        try pub.send(topic: "obs.nmea.gps0", body: Self.nmea("$" + String(repeating: "A", count: 200_000), seq: 2))
        try pub.send(topic: "obs.nmea.gps0", body: Self.nmea("$GPGGA,1*00", source: "gps1", seq: 3))
        try pub.send(topic: "obs.fix.gps0", body: EnvelopeCodec.encode(Samples.fix(1, source: "gps9"), producer: "intruder", seq: 4, time: Samples.time))
        try pub.send(topic: "obs.nmea.gps0", body: Self.nmea("$GPGGA,1*00", seq: 5))
        // In-process plugins are Locus's own code: not checked again (their codecs write the schema).
        outlet.send(topic: "obs.nmea.inside", body: Self.nmea("$GPRMC,2*00", source: "inside", seq: 6))

        var received: [String] = []
        while received.count < 2, let frames = try receive(sub, timeout: 5) {
            let body = try EnvelopeCodec.decode(frames[1], registry: .core)
            received.append(body.payload.as(NMEASentence.self)?.sentence ?? "?")
        }
        #expect(Set(received) == ["$GPGGA,1*00", "$GPRMC,2*00"])
        #expect(try sub.receiveMultipart(timeoutMilliseconds: 200) == nil)
        #expect(eventually { hub.statistics.dropped(.badPayload) == 4 })
        outlet.close()
        pub.close()
        sub.close()
    }
}

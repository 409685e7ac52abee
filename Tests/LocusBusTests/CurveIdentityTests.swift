import Foundation
import LocusCore
import Testing
@testable import LocusBus

/// Issue 15, item 3: an outside publisher's messages carry the CURVE key name it connected with
/// (`via`), which nobody can forge.
@Suite struct CurveIdentityTests {
    @Test func viaIsFoundHoweverWrittenAndAddedAsTheLastMember() {
        func present(_ s: String) -> Bool { Array(s.utf8).withUnsafeBytes { EnvelopeVia.isPresent(in: $0) } }
        #expect(present(#"{"type":"t","via":"x"}"#))
        #expect(present(#"{"type":"t","v\u0069a":"x"}"#))
        #expect(present(#"{ "via" : 1 }"#))
        #expect(!present(#"{"type":"t","payload":{"via":"x"}}"#))  // a payload field is not the envelope's
        #expect(!present(#"{}"#))
        #expect(present(#"[1]"#))  // not an object: refused rather than guessed
        // A number Locus's reader refuses does not hide a via after it (Python's json reads it).
        #expect(present(#"{"payload":{"lat":1e999,"s":"}\"{"},"via":"x"}"#))
        #expect(!present(#"{"payload":{"lat":1e999,"s":"}\"{"},"v":[1,{"via":2}]}"#))
        #expect(present(#"{"payload":{"#))  // unfinished
        func added(_ name: String, _ s: String) -> String? {
            Array(s.utf8).withUnsafeBytes { EnvelopeVia.adding(name, to: $0) }.map { String(decoding: $0, as: UTF8.self) }
        }
        #expect(added("alice", #"{"seq":1,"payload":{}}"#) == #"{"seq":1,"payload":{},"via":"alice"}"#)
        #expect(added("alice", "{\"seq\":1} \n") == #"{"seq":1,"via":"alice"}"#)
        #expect(added("a\"b", "{ }") == #"{ "via":"a\"b"}"#)
        #expect(added("alice", "[]") == nil)
    }

    @Test func theDecoderReadsVia() throws {
        var body = Samples.fixBody(1)
        body = body.withUnsafeBytes { EnvelopeVia.adding("van-12", to: $0) }!
        #expect(try EnvelopeCodec.decode(body, registry: .core).via == "van-12")
        #expect(try EnvelopeCodec.decode(Samples.fixBody(1), registry: .core).via == nil)
    }

    /// Real sockets: a CURVE publisher on a TCP ingest endpoint and a plaintext one on ipc, both
    /// outside publishers; a subscriber sees the key name on the first's messages only, and
    /// messages that bring their own `via` (over CURVE or not) are refused as `reserved`.
    @Test func messagesOverCurveCarryTheKeyNameAndForgedOnesAreRefused() throws {
        let setup = try CurveIngestSetup {
            $0.outsidePublishers = OutsidePublisherPolicy(reservedTopics: ["region."], reservedProducers: ["locus"])
        }
        defer { setup.close() }
        let (hub, subscriber, alice, plain) = (setup.hub, setup.subscriber, setup.alice, setup.plain)

        func forged(_ i: Int, producer: String, via: String) -> [UInt8] {
            Samples.fixBody(i, producer: producer, source: "phone").withUnsafeBytes { EnvelopeVia.adding(via, to: $0) }!
        }
        // Publish for up to 3 s (CURVE handshake, slow joiners) until both have been heard.
        var via: [String: Set<String>] = [:]  // producer -> via values seen ("-" for none)
        let deadline = Date(timeIntervalSinceNow: 3)
        var i = 0
        while Date() < deadline && (via["alice-phone"] == nil || via["plain-phone"] == nil) {
            i += 1
            _ = try alice.send(topic: "obs.fix.phone", body: Samples.fixBody(i, producer: "alice-phone", source: "phone"))
            _ = try alice.send(topic: "obs.fix.phone", body: forged(i, producer: "alice-forged", via: "bob"))
            _ = try plain.send(topic: "obs.fix.phone", body: Samples.fixBody(i, producer: "plain-phone", source: "phone"))
            _ = try plain.send(topic: "obs.fix.phone", body: forged(i, producer: "plain-forged", via: "alice"))
            usleep(20_000)
            while let frames = try subscriber.receiveMultipart(dontWait: true) {
                let envelope = try EnvelopeCodec.decode(frames[1], registry: .core)
                via[envelope.producer, default: []].insert(envelope.via ?? "-")
            }
        }
        #expect(via["alice-phone"] == ["alice"])
        #expect(via["plain-phone"] == ["-"])
        #expect(via["alice-forged"] == nil && via["plain-forged"] == nil, "\(via)")
        #expect(hub.statistics.dropped(.reserved) >= 2)
    }

    /// The hub's limit holds for what it sends: a CURVE message that fits only without its
    /// `via` stamp is refused as `too_large`, the same body over plaintext passes untouched, and
    /// a shorter one over CURVE passes stamped.
    @Test func theViaStampNeverTakesABodyOverTheLimit() throws {
        let full = Samples.fixBody(1, producer: "full-xxxxxxxxxxxxxxxxxxxxxxxxx", source: "phone"), short = Samples.fixBody(1, producer: "short", source: "phone")
        #expect(short.count + #","via":"alice""#.utf8.count < full.count)
        let setup = try CurveIngestSetup { $0.limits.maxMessageBytes = full.count }
        defer { setup.close() }
        let (hub, subscriber, alice, plain) = (setup.hub, setup.subscriber, setup.alice, setup.plain)

        var seen: [String: Set<String>] = [:]  // producer -> via values ("-" for none)
        var largest = 0
        let deadline = Date(timeIntervalSinceNow: 3)
        while Date() < deadline && (seen["short"] == nil || seen["full-xxxxxxxxxxxxxxxxxxxxxxxxx"] == nil) {
            _ = try alice.send(topic: "obs.fix.phone", body: full)
            _ = try alice.send(topic: "obs.fix.phone", body: short)
            _ = try plain.send(topic: "obs.fix.phone", body: full)
            usleep(20_000)
            while let frames = try subscriber.receiveMultipart(dontWait: true) {
                largest = max(largest, frames[1].count)
                let envelope = try EnvelopeCodec.decode(frames[1], registry: .core)
                seen[envelope.producer, default: []].insert(envelope.via ?? "-")
            }
        }
        #expect(seen["short"] == ["alice"], "\(seen)")
        #expect(seen["full-xxxxxxxxxxxxxxxxxxxxxxxxx"] == ["-"], "\(seen)")  // only plaintext's copy, never alice's
        #expect(largest <= full.count)
        #expect(hub.statistics.dropped(.tooLarge) >= 1)
    }
}

/// A hub with two outside publishers on its ingest: `alice` over CURVE on TCP (her key in the
/// ZAP handler's authorized_keys) and `plain` over ipc, and a subscriber to `obs.`.
private final class CurveIngestSetup {
    let dir = TempDirectory()
    let context = ZMQContext()
    let zap: ZAPHandler
    let hub: Hub
    let subscriber, alice, plain: ZMQSocket

    /// `configure` adjusts the hub's configuration before it starts.
    init(_ configure: (inout HubConfiguration) -> Void) throws {
        try FileManager.default.createDirectory(atPath: dir.path + "/clients", withIntermediateDirectories: true)
        let (serverPublic, serverSecret) = try CurveKey.keypair()
        let (alicePublic, aliceSecret) = try CurveKey.keypair()
        try CurveCertificate(publicKey: alicePublic).text(generated: "t").write(toFile: dir.path + "/clients/alice.key", atomically: true, encoding: .utf8)
        zap = ZAPHandler(context: context, logger: quietLogger)
        zap.authorize(domain: "ingest-tcp", keys: AuthorizedKeys(directory: dir.path + "/clients"))
        try zap.start()
        var config = HubConfiguration(ingestEndpoints: ["tcp://127.0.0.1:*", dir.endpoint("in.sock")],
                                      publishEndpoints: [dir.endpoint("pub.sock")])
        config.curve = ["tcp://127.0.0.1:*": CurveServer(secretKey: serverSecret, domain: "ingest-tcp")]
        configure(&config)
        hub = Hub(configuration: config, registry: .core, context: context, logger: quietLogger)
        try hub.start()
        let tcp = try #require(hub.boundEndpoints.first { $0.hasPrefix("tcp://") })
        subscriber = try ZMQSocket(context: context, type: .sub)
        try subscriber.setOption(.linger(milliseconds: 0))
        try subscriber.subscribe("obs.")
        try subscriber.connect(dir.endpoint("pub.sock"))
        alice = try ZMQSocket(context: context, type: .pub)
        plain = try ZMQSocket(context: context, type: .pub)
        try alice.setCurveClient(CurveClient(serverKey: serverPublic, publicKey: alicePublic, secretKey: aliceSecret))
        for s in [alice, plain] { try s.setOption(.linger(milliseconds: 0)) }
        try alice.connect(tcp)
        try plain.connect(dir.endpoint("in.sock"))
    }

    func close() {
        [subscriber, alice, plain].forEach { $0.close() }
        hub.stop()
        zap.stop()
        dir.remove()
    }
}

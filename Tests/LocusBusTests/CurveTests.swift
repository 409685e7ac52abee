import Foundation
import Testing
@testable import LocusBus

/// CURVE endpoints with the ZAP handler as an allow-list, over real libzmq TCP sockets.
@Suite(.serialized) struct CurveTests {
    @Test func z85RoundTripsAndRejectsWhatIsNotAKey() throws {
        let (pub, sec) = try CurveKey.keypair()
        #expect(CurveKey(z85: pub.z85) == pub)
        #expect(try sec.publicKey() == pub)
        #expect(pub.z85.utf8.count == 40)
        // RFC 32's test vector, repeated to 32 bytes: 86 4F D2 6F B5 59 F7 5B is "HelloWorld".
        let hello: [UInt8] = [0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B]
        #expect(CurveKey(bytes: hello + hello + hello + hello)?.z85 == String(repeating: "HelloWorld", count: 4))
        #expect(CurveKey(z85: String(repeating: "HelloWorld", count: 4))?.bytes == hello + hello + hello + hello)
        #expect(CurveKey(z85: String(pub.z85.dropLast())) == nil)
        #expect(CurveKey(z85: String(pub.z85.dropLast()) + "\"") == nil)  // '"' is not Z85
        #expect(CurveKey(z85: String(pub.z85.dropLast()) + "é") == nil)
        #expect(CurveKey(bytes: [1, 2, 3]) == nil)
        #expect(!pub.description.contains(pub.z85))
    }

    @Test func certificatesReadAsPyzmqWritesThem() throws {
        let (pub, sec) = try CurveKey.keypair()
        // pyzmq's zmq.auth.create_certificates layout, byte for byte apart from the date.
        let pyzmqSecret = """
        #   ****  Generated on 2026-11-25 10:00:00.000000 by pyzmq  ****
        #   ZeroMQ CURVE **Secret** Certificate
        #   DO NOT PROVIDE THIS FILE TO OTHER USERS nor change its permissions.

        metadata
        curve
            public-key = "\(pub.z85)"
            secret-key = "\(sec.z85)"

        """
        let cert = try CurveCertificate.parse(Array(pyzmqSecret.utf8)).get()
        #expect(cert.publicKey == pub && cert.secretKey == sec)
        // What we write, we read.
        let again = try CurveCertificate.parse(Array(cert.text(generated: "now").utf8)).get()
        #expect(again == cert)
        let publicOnly = try CurveCertificate.parse(Array(CurveCertificate(publicKey: pub).text(generated: "now").utf8)).get()
        #expect(publicOnly.secretKey == nil && publicOnly.publicKey == pub)

        func problem(_ text: String) -> String? {
            if case .failure(let e) = CurveCertificate.parse(Array(text.utf8)) { return e.description }
            return nil
        }
        #expect(problem("metadata\ncurve\n") == "has no public-key line")
        #expect(problem("#    public-key = \"\(pub.z85)\"\n") == "has no public-key line")  // a comment
        #expect(problem("public-key = \"short\"") == "has a public-key that is not 40 characters of Z85")
        let (_, otherSecret) = try CurveKey.keypair()
        #expect(problem("public-key = \"\(pub.z85)\"\nsecret-key = \"\(otherSecret.z85)\"")
                == "has a secret-key that does not belong to its public-key")
        #expect(problem(String(repeating: "x", count: CurveCertificate.maxFileBytes + 1))?.contains("bytes") == true)
    }

    @Test func authorizedKeysFollowTheDirectory() throws {
        let dir = TempDirectory()
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        defer { dir.remove() }
        let (alice, _) = try CurveKey.keypair()
        let (bob, _) = try CurveKey.keypair()
        try CurveCertificate(publicKey: alice).text(generated: "t").write(toFile: dir.file("alice.key"), atomically: true, encoding: .utf8)
        try "not a certificate".write(toFile: dir.file("broken.key"), atomically: true, encoding: .utf8)
        try CurveCertificate(publicKey: bob).text(generated: "t").write(toFile: dir.file("bob.key.disabled"), atomically: true, encoding: .utf8)
        let keys = AuthorizedKeys(directory: dir.path)
        try keys.check()
        #expect(keys.name(of: alice) == "alice")
        #expect(keys.name(of: bob) == nil)
        #expect(keys.problems.count == 1 && keys.problems[0].contains("broken.key"))
        // Revoking = deleting the file; enabling = renaming. No restart.
        try FileManager.default.removeItem(atPath: dir.file("alice.key"))
        try FileManager.default.moveItem(atPath: dir.file("bob.key.disabled"), toPath: dir.file("bob.key"))
        #expect(keys.name(of: alice) == nil)
        #expect(keys.name(of: bob) == "bob")
        #expect(throws: LocusBusError.self) { try AuthorizedKeys(directory: dir.file("missing")).check() }
    }

    @Test func curveNeedsTheHandler() throws {
        let context = ZMQContext()
        let socket = try ZMQSocket(context: context, type: .xpub)
        defer { socket.close() }
        let (_, sec) = try CurveKey.keypair()
        #expect(throws: ZMQError.self) { try socket.bind("tcp://127.0.0.1:*", curve: CurveServer(secretKey: sec, domain: "d")) }
    }

    /// Allowed key receives; an unknown key, a plaintext client and a client with the wrong
    /// server key receive nothing; the unknown key is logged once; a plain ipc endpoint of the
    /// same hub keeps working.
    @Test func onlyAuthorizedKeysReceive() throws {
        let dir = TempDirectory()
        try FileManager.default.createDirectory(atPath: dir.path + "/clients", withIntermediateDirectories: true)
        defer { dir.remove() }
        let (serverPublic, serverSecret) = try CurveKey.keypair()
        let (alicePublic, aliceSecret) = try CurveKey.keypair()
        let (malloryPublic, mallorySecret) = try CurveKey.keypair()
        let (wrongServer, _) = try CurveKey.keypair()
        try CurveCertificate(publicKey: alicePublic).text(generated: "t").write(toFile: dir.path + "/clients/alice.key", atomically: true, encoding: .utf8)

        let context = ZMQContext()
        let capture = LogCapture()
        let zap = ZAPHandler(context: context, logger: capture.logger)
        zap.authorize(domain: "publish-tcp", keys: AuthorizedKeys(directory: dir.path + "/clients"))
        try zap.start()
        defer { zap.stop() }
        var config = HubConfiguration(publishEndpoints: ["tcp://127.0.0.1:*", dir.endpoint("pub.sock")])
        config.curve = ["tcp://127.0.0.1:*": CurveServer(secretKey: serverSecret, domain: "publish-tcp")]
        let hub = Hub(configuration: config, registry: .core, context: context, logger: quietLogger)
        try hub.start()
        defer { hub.stop() }
        let tcp = try #require(hub.boundEndpoints.first { $0.hasPrefix("tcp://") })

        func subscriber(_ curve: CurveClient?, _ endpoint: String) throws -> ZMQSocket {
            let s = try ZMQSocket(context: context, type: .sub)
            try s.setOption(.linger(milliseconds: 0))
            if let curve { try s.setCurveClient(curve) }
            try s.subscribe("obs.")
            try s.connect(endpoint)
            return s
        }
        let alice = try subscriber(CurveClient(serverKey: serverPublic, publicKey: alicePublic, secretKey: aliceSecret), tcp)
        let mallory = try subscriber(CurveClient(serverKey: serverPublic, publicKey: malloryPublic, secretKey: mallorySecret), tcp)
        let plain = try subscriber(nil, tcp)
        let wrong = try subscriber(CurveClient(serverKey: wrongServer, publicKey: alicePublic, secretKey: aliceSecret), tcp)
        let local = try subscriber(nil, dir.endpoint("pub.sock"))
        defer { [alice, mallory, plain, wrong, local].forEach { $0.close() } }

        let publisher = try ZMQSocket(context: context, type: .pub)
        defer { publisher.close() }
        try publisher.connect(HubConfiguration.inprocIngest)
        var got: [String: Int] = [:]
        let sockets = ["alice": alice, "mallory": mallory, "plain": plain, "wrong": wrong, "local": local]
        // Publish for 2 s (slow joiners, CURVE handshakes), counting what each one receives.
        let deadline = Date(timeIntervalSinceNow: 2)
        var i = 0
        while Date() < deadline {
            i += 1
            _ = try publisher.send(topic: "obs.fix.gps0", body: Samples.fixBody(i))
            for (name, s) in sockets {
                while let frames = try s.receiveMultipart(dontWait: true) {
                    #expect(frames.count == 2)
                    got[name, default: 0] += 1
                }
            }
            usleep(5_000)
        }
        #expect(got["alice", default: 0] > 50)
        #expect(got["local", default: 0] > 50)
        #expect(got["mallory", default: 0] == 0)
        #expect(got["plain", default: 0] == 0)
        #expect(got["wrong", default: 0] == 0)
        let stats = zap.statistics
        #expect(stats.accepted["alice"] == 1)
        #expect(stats.refused >= 1)
        // Mallory retried all along; her key is logged once.
        let refusals = capture.records.filter { $0.message.contains("not in authorized_keys") }
        #expect(refusals.count == 1)
        #expect(refusals.first?.metadata.contains(malloryPublic.z85) == true)
    }
}

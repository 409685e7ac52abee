import Foundation
@testable import LocusMQTTPlugin
import LocusTestKit
import Testing

/// The `mqtt` sink's pure parts: which journal position is safe to save, how topics render,
/// and which configurations are refused. Its delivery against a real broker is in
/// EndToEndTests/MQTTSinkTests.
struct MQTTSinkUnitTests {
    /// Issue 30, item 3: a system call's failure is told by the errno its caller kept, not by
    /// whatever errno this thread has now (which read "Success" in the log).
    @Test func aSystemCallFailureIsToldByTheErrnoKept() {
        let mosqErrErrno: Int32 = 14   // MOSQ_ERR_ERRNO
        errno = 0
        #expect(MosquittoClient.describe(mosqErrErrno, errno: ECONNREFUSED) == "Connection refused")
        #expect(MosquittoClient.describe(mosqErrErrno, errno: 0) == "a system call failed (no errno kept)")
    }

    @Test func thePositionOnlyMovesPastAcknowledgedRecords() {
        var w = DeliveryWindow(readNext: 10)
        #expect(w.deliveredThrough == 10)
        w.sent(mid: 1, index: 10)
        w.passed(11)                  // another topic: nothing to wait for
        w.sent(mid: 2, index: 12)
        w.sent(mid: 3, index: nil)    // a live message: no journal position
        w.sent(mid: 4, index: 13)
        #expect(w.inFlight == 4 && w.deliveredThrough == 10)
        // Out of order: 12 acknowledged before 10 does not move the position.
        var ok = w.acknowledge(mid: 2)
        #expect(ok)
        #expect(w.deliveredThrough == 10)
        ok = w.acknowledge(mid: 1)
        #expect(ok)
        #expect(w.deliveredThrough == 13)
        // The live message never holds the position back.
        ok = w.acknowledge(mid: 4)
        #expect(ok && w.deliveredThrough == 14)
        ok = w.acknowledge(mid: 4)
        #expect(!ok, "an id already settled is not awaited")
        ok = w.acknowledge(mid: 3)
        #expect(ok && w.inFlight == 0 && w.deliveredThrough == 14)
        w.jump(to: 20)
        #expect(w.deliveredThrough == 20)
    }

    @Test func manyMessagesKeepTheWindowSmall() {
        var w = DeliveryWindow(readNext: 1)
        var mid: Int32 = 0
        for index in UInt64(1)...20_000 {
            mid = mid % 65535 + 1
            w.sent(mid: mid, index: index)
            if index > 50 {
                let ok = w.acknowledge(mid: Int32((Int(mid) + 65535 - 51) % 65535 + 1))
                #expect(ok)
            }
        }
        #expect(w.inFlight == 50)
        #expect(w.deliveredThrough == 19_951)
    }

    @Test func topicsRenderWithDotsAsLevels() {
        let t = MQTTTopicTemplate("locus/{device}/{topic}", device: "van7")
        #expect(t.render(topic: "region.enter.home", producer: "fences") == "locus/van7/region/enter/home")
        let p = MQTTTopicTemplate("fleet/{producer}/{device}/{topic}/x{", device: "d")
        #expect(p.render(topic: "a.b", producer: "fences") == "fleet/fences/d/a/b/x{")
        #expect(MQTTTopicTemplate.problem(inTemplate: "locus/+/{topic}") != nil)
        #expect(MQTTTopicTemplate.problem(inTemplate: "$SYS/{topic}") != nil)
        #expect(MQTTTopicTemplate.problem(inTemplate: "locus/{devise}/{topic}") != nil)
        #expect(MQTTTopicTemplate.problem(inTemplate: "locus/{device}/{topic}") == nil)
        #expect(MQTTTopicTemplate.problem(inLevel: "van/7") != nil)
        #expect(MQTTTopicTemplate.problem(inLevel: "van#") != nil)
        #expect(MQTTTopicTemplate.problem(inLevel: "van-7") == nil)
        #expect(MQTTTopicTemplate.problem(inLevel: MQTTTopicTemplate.defaultDevice()) == nil)
    }

    @Test func badConfigurationsAreRefusedAtTheirKey() {
        #expect(configErrorKey(MQTTSinkConfiguration.self, #"{"device": "a/b"}"#) == "device")
        #expect(configErrorKey(MQTTSinkConfiguration.self, #"{"topic_template": "x/#"}"#) == "topic_template")
        #expect(configErrorKey(MQTTSinkConfiguration.self, #"{"password": "p", "password_file": "f"}"#) == "password_file")
        #expect(configErrorKey(MQTTSinkConfiguration.self, #"{"tls_cert_file": "c.pem", "tls_key_file": "k.pem"}"#) == "tls_ca_file")
        #expect(configErrorKey(MQTTSinkConfiguration.self, #"{"tls_ca_file": "ca.pem", "tls_cert_file": "c.pem"}"#) == "tls_key_file")
        #expect(configErrorKey(MQTTSinkConfiguration.self, #"{"qos": 3}"#) == "qos")
        #expect(configErrorKey(MQTTSinkConfiguration.self, #"{"protocol": "4"}"#) == "protocol")
        #expect(configErrorKey(MQTTSinkConfiguration.self, #"{"reconnect_min": 5, "reconnect_max": 1}"#) == "reconnect_max")
        #expect(configErrorKey(MQTTSinkConfiguration.self, #"{"device": "van7", "protocol": "5"}"#) == nil)
        let tls = try? decodeConfiguration(MQTTSinkConfiguration.self, #"{"tls_ca_file": "ca.pem"}"#)
        #expect(tls?.connection.effectivePort == 8883)
    }

    /// Issue 32 item 2: the broker connection's keys are declared once (`MQTTConnectionSettings`)
    /// and read flat, as before, by the source and the sink alike. Before, each declared its
    /// own, and the source took a client certificate without tls_ca_file (and ignored it).
    @Test func theSourceAndTheSinkShareTheirConnectionKeys() throws {
        let names = ["host", "port", "protocol", "username", "password", "password_file", "tls_ca_file", "tls_cert_file",
                     "tls_key_file", "tls_verify_hostname", "keepalive", "reconnect_min", "reconnect_max"]
        for name in names {
            let source = MQTTSourceConfiguration.keys.first { $0.name == name }
            let sink = MQTTSinkConfiguration.keys.first { $0.name == name }
            #expect(source != nil && source?.doc == sink?.doc && source?.type == sink?.type && source?.defaultValue == sink?.defaultValue, "\(name)")
        }
        let bad: [(String, String)] = [
            (#"{"password": "p", "password_file": "f"}"#, "password_file"),
            (#"{"tls_cert_file": "c.pem", "tls_key_file": "k.pem"}"#, "tls_ca_file"),
            (#"{"tls_ca_file": "ca.pem", "tls_cert_file": "c.pem"}"#, "tls_key_file"),
            (#"{"reconnect_min": 5, "reconnect_max": 1}"#, "reconnect_max"),
            (#"{"keepalive": 1}"#, "keepalive"),
            (#"{"port": 70000}"#, "port"),
            (#"{"protocol": "4"}"#, "protocol"),
        ]
        for (json, key) in bad {
            #expect(configErrorKey(MQTTSinkConfiguration.self, json) == key, "sink: \(json)")
            #expect(configErrorKey(MQTTSourceConfiguration.self, json) == key, "source: \(json)")
        }
        let source = try decodeConfiguration(MQTTSourceConfiguration.self, #"{"host": "broker.lan", "port": 1884, "username": "u", "reconnect_max": 2}"#)
        #expect(source.connection.host == "broker.lan" && source.connection.port == 1884 && source.connection.username == "u")
        #expect(source.connection.reconnectMax == 2 && source.connection.brokerText == "broker.lan:1884")
    }

    @Test func thePositionFileRoundTripsAndRefusesGarbage() throws {
        let dir = NSTemporaryDirectory() + "mqtt-pos-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = ForwardPositionFile(path: dir + "/up.mqtt-position")
        #expect(try file.load() == nil)
        #expect(file.save(12345) == nil)
        #expect(try file.load() == 12345)
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        try "not a number".write(toFile: file.path, atomically: true, encoding: .utf8)
        #expect(throws: MQTTError.self) { try file.load() }
    }
}

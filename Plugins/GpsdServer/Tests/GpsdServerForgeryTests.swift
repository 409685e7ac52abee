import Foundation
import LocusCore
@testable import LocusGpsdServerPlugin
import LocusTestKit
import Testing

/// Issue 49 items 5, 6 and 9: what a publisher on the bus (or a client) can make the server
/// write, serve or take.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct GpsdServerForgeryTests {
    static let rmc = "$GNRMC,020935.000,A,4404.1351,N,12118.8556,W,0.04,359.11,050219,,,A*6C"
    static let gga = "$GPGGA,020936.000,4404.1351,N,12118.8557,W,1,08,0.9,1123.9,M,-19.6,M,,0000*5C"

    /// A sentence is written only if it is one framed, checksummed NMEA sentence of printable
    /// ASCII (at most 256 bytes), from the device its topic names.
    @Test func anNMEAWatcherGetsOnlyOneChecksummedSentenceAtATime() async throws {
        let server = try await RunningGpsdServer()
        defer { Task { await server.stop() } }
        server.send(NMEASentence(source: "gps0", sentence: Self.rmc), topic: "obs.nmea.gps0", at: 1)
        #expect(await waitUntil(timeout: 5) { server.counters.sentencesTaken == 1 })
        let client = try LineClient(port: server.port)
        client.send("?WATCH={\"enable\":true,\"nmea\":true};")
        #expect(client.next("WATCH")?["nmea"] as? Bool == true)

        let forged = "$GPGGA,1*00\r\n{\"class\":\"TPV\",\"device\":\"gps0\",\"mode\":3,\"lat\":0.0,\"lon\":0.0}\r\n{\"class\":\"DEVICE\",\"path\":\"/dev/evil\"}"
        server.send(NMEASentence(source: "gps0", sentence: forged), topic: "obs.nmea.gps0", at: 2)
        // 200,001 bytes of printable ASCII with a right checksum: too long all the same.
        let body = "GPTXT," + String(repeating: "A", count: 199_991)
        let sum = body.utf8.reduce(UInt8(0), ^)
        let huge = "$" + body + "*" + String(format: "%02X", sum)
        #expect(huge.utf8.count == 200_001)
        server.send(NMEASentence(source: "gps0", sentence: huge), topic: "obs.nmea.gps0", at: 3)
        // A wrong checksum, a control character, and a sentence whose source is not its topic's.
        server.send(NMEASentence(source: "gps0", sentence: String(Self.gga.dropLast(2)) + "00"), topic: "obs.nmea.gps0", at: 4)
        server.send(NMEASentence(source: "gps0", sentence: "$GPTXT,01,01,02,a\u{7}b*00"), topic: "obs.nmea.gps0", at: 5)
        server.send(NMEASentence(source: "gps0", sentence: Self.rmc), topic: "obs.nmea.evil", at: 6)
        server.send(NMEASentence(source: "gps0", sentence: Self.gga), topic: "obs.nmea.gps0", at: 7)
        #expect(client.line() == Self.gga)
        #expect(client.line(timeout: 0.5) == nil)
        #expect(await waitUntil(timeout: 5) { server.count("dropped_bad_sentence") == 4 })
        #expect(server.count("dropped_source_mismatch") == 1)
        #expect(server.counters.sentencesTaken == 2)
    }

    /// A fix or sky view whose source is not its topic's last segment is not served.
    @Test func aFixFromAnotherTopicIsNotServed() async throws {
        let server = try await RunningGpsdServer()
        defer { Task { await server.stop() } }
        let client = try LineClient(port: server.port)
        client.send("?WATCH={\"enable\":true};")
        _ = client.next("WATCH")
        server.send(sampleFix("gps0", lat: 1), topic: "obs.fix.fake", at: 1)
        server.send(sampleFix("gps0", lat: 2), topic: "obs.fix.gps0", at: 2)
        #expect(client.next("TPV")?["lat"] as? Double == 2)
        #expect(server.count("dropped_source_mismatch") == 1)
    }

    /// Item 6: 300 devices of an outside publisher before the receiver's first fix do not
    /// crowd it out: with `sources: []` only the config's own sources are served.
    @Test func outsideDevicesDoNotCrowdOutTheReceiver() async throws {
        let server = try await RunningGpsdServer(ownSources: ["gps0"])
        defer { Task { await server.stop() } }
        for i in 0..<300 { server.send(sampleFix("fake\(i)"), topic: "obs.fix.fake\(i)", at: Double(i)) }
        // gps0's topic from outside (an ingest publisher may use it, not gps0's producer name).
        server.send(sampleFix("gps0", lat: 1), topic: "obs.fix.gps0", at: 300, producer: "ingest")
        server.send(sampleFix("gps0", lat: 2), topic: "obs.fix.gps0", at: 301)
        #expect(await waitUntil(timeout: 5) { server.count("ignored_unlisted_device") == 301 })
        let client = try LineClient(port: server.port)
        client.send("?DEVICE={\"path\":\"gps0\"};")
        #expect(client.next("DEVICE")?["path"] as? String == "gps0")
        client.send("?DEVICES;")
        #expect((client.next("DEVICES")?["devices"] as? [[String: Any]])?.map { $0["path"] as? String } == ["gps0"])
        client.send("?POLL;")
        #expect((client.next("POLL")?["tpv"] as? [[String: Any]])?.first?["lat"] as? Double == 2)
        #expect(server.counters.droppedTooManyDevices == 0)
    }

    /// `sources:` names devices (a phone's id) or the source that publishes them (a fleet
    /// source's id: every device it publishes).
    @Test func listedDevicesAndFleetSourcesAreServed() async throws {
        let server = try await RunningGpsdServer(settings: ["sources": ["phone-1", "fleet"]], ownSources: ["gps0", "fleet"])
        defer { Task { await server.stop() } }
        server.send(sampleFix("phone-1"), topic: "obs.fix.phone-1", at: 1, producer: "ingest")
        server.send(sampleFix("phone-2"), topic: "obs.fix.phone-2", at: 2, producer: "fleet")
        server.send(sampleFix("phone-3"), topic: "obs.fix.phone-3", at: 3, producer: "ingest")
        server.send(sampleFix("gps0"), topic: "obs.fix.gps0", at: 4)
        #expect(await waitUntil(timeout: 5) { server.count("ignored_unlisted_device") == 2 })
        let client = try LineClient(port: server.port)
        client.send("?DEVICES;")
        #expect((client.next("DEVICES")?["devices"] as? [[String: Any]])?.map { $0["path"] as? String } == ["phone-1", "phone-2"])
    }

    /// A device that stops reporting for device_timeout expires: watchers get gpsd's DEVICE
    /// with activated 0, ?DEVICES leaves it out, and its place under max_devices is free.
    @Test func aDeviceThatStopsReportingExpires() async throws {
        let server = try await RunningGpsdServer(settings: ["device_timeout": 0.5, "max_devices": 1])
        defer { Task { await server.stop() } }
        let client = try LineClient(port: server.port)
        client.send("?WATCH={\"enable\":true};")
        _ = client.next("WATCH")
        server.send(sampleFix("gps0"), topic: "obs.fix.gps0", at: 1)
        #expect(client.next("DEVICE")?["path"] as? String == "gps0")
        #expect(client.next("TPV") != nil)
        let gone = try #require(client.next("DEVICE", timeout: 5))
        #expect(gone["path"] as? String == "gps0" && gone["activated"] as? Int == 0)
        #expect(server.count("devices_expired") == 1)
        client.send("?DEVICES;")
        #expect((client.next("DEVICES")?["devices"] as? [Any])?.isEmpty == true)
        server.send(sampleFix("gps1"), topic: "obs.fix.gps1", at: 2)
        #expect(client.next("DEVICE")?["path"] as? String == "gps1")
        #expect(server.counters.droppedTooManyDevices == 0)
    }

    /// Item 9: a request one byte past max_request_bytes is refused though it arrives whole in
    /// one read; one of exactly max_request_bytes is taken.
    @Test func aRequestOneBytePastTheBoundIsRefusedInOneRead() async throws {
        let server = try await RunningGpsdServer { $0.maxRequestBytes = 64 }
        defer { Task { await server.stop() } }
        func request(_ n: Int) -> String {
            let frame = "?WATCH={\"device\":\"\"};"
            return "?WATCH={\"device\":\"" + String(repeating: "x", count: n - frame.utf8.count) + "\"};"
        }
        let client = try LineClient(port: server.port)
        _ = client.next("VERSION")
        client.send(request(64))
        #expect(client.next("WATCH")?["device"] as? String == String(repeating: "x", count: 64 - 21))
        client.send(request(65))
        #expect((client.next("ERROR")?["message"] as? String)?.hasPrefix("Request too long") == true)
        #expect(client.closedByServer())
        #expect(server.counters.requestsTooLong == 1)
    }
}

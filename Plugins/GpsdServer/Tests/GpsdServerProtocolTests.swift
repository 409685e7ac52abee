import Foundation
import LocusCore
@testable import LocusGpsdServerPlugin
import LocusTestKit
import Testing

/// The gpsd protocol as a raw client sees it, against the sink on a real loopback socket.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct GpsdServerProtocolTests {
    @Test func greetsWatchesAndReportsFixesAndSkyViews() async throws {
        let server = try await RunningGpsdServer()
        defer { Task { await server.stop() } }
        let client = try LineClient(port: server.port)
        let version = try #require(client.report())
        #expect(version["class"] as? String == "VERSION")
        #expect(version["proto_major"] as? Int == 3 && version["proto_minor"] as? Int == 14)
        #expect(version["release"] as? String == "3.22")

        // Devices become known from the bus; a watcher is told of each as it appears.
        client.send("?WATCH={\"enable\":true,\"json\":true};\n")
        let devices = try #require(client.next("DEVICES"))
        #expect((devices["devices"] as? [Any])?.isEmpty == true)
        let watch = try #require(client.next("WATCH"))
        #expect(watch["enable"] as? Bool == true && watch["json"] as? Bool == true && watch["nmea"] as? Bool == false)
        #expect(await waitUntil(timeout: 5) { server.counters.clientsWatching == 1 })

        server.send(sampleFix(), topic: "obs.fix.gps0", at: 1_549_332_594)
        let device = try #require(client.next("DEVICE"))
        #expect(device["path"] as? String == "gps0")
        #expect(device["driver"] as? String == "Locus")
        let tpv = try #require(client.next("TPV"))
        #expect(tpv["device"] as? String == "gps0")
        #expect(tpv["mode"] as? Int == 3)
        #expect(tpv["status"] as? Int == 2)  // DGPS
        #expect(tpv["time"] as? String == "2019-02-05T02:09:54.000Z")
        #expect(tpv["lat"] as? Double == 44.0689 && tpv["lon"] as? Double == -121.3142)
        #expect(tpv["altMSL"] as? Double == 1124.3 && tpv["alt"] as? Double == 1124.3)
        #expect(abs((tpv["altHAE"] as? Double ?? 0) - 1104.7) < 1e-9)
        #expect(abs((tpv["geoidSep"] as? Double ?? 0) + 19.6) < 1e-9)
        #expect(tpv["speed"] as? Double == 1.25 && tpv["track"] as? Double == 359.11)
        // gpsd's error estimates are 95 %: twice Locus's 1-sigma.
        #expect(tpv["eph"] as? Double == 7.2 && tpv["epv"] as? Double == 12)
        #expect(tpv["climb"] == nil)

        // The next fix, 1 s later and 0.5 m higher: the climb is derived, as gpsd does.
        server.send(sampleFix(alt: 1124.8), topic: "obs.fix.gps0", at: 1_549_332_595)
        let second = try #require(client.next("TPV"))
        #expect(second["climb"] as? Double == 0.5)

        let sky = SkyView(source: "gps0", satellites: [
            .init(constellation: "gps", prn: 15, elevation: 29, azimuth: 271, snr: 37, used: true),
            .init(constellation: "glonass", prn: 73, elevation: 47, azimuth: 322, snr: 36, used: true),
            .init(constellation: "gps", prn: 13, elevation: 37, azimuth: 229, snr: nil, used: false),
        ])
        server.send(sky, topic: "obs.sky.gps0", at: 1_549_332_595)
        let report = try #require(client.next("SKY"))
        #expect(report["nSat"] as? Int == 3 && report["uSat"] as? Int == 2)
        #expect(report["hdop"] as? Double == 0.9 && report["vdop"] as? Double == 1.5 && report["pdop"] as? Double == 1.8)
        let sats = try #require(report["satellites"] as? [[String: Any]])
        #expect(sats.count == 3)
        #expect(sats[1]["PRN"] as? Int == 73 && sats[1]["gnssid"] as? Int == 6 && sats[1]["svid"] as? Int == 9)
        #expect(sats[2]["used"] as? Bool == false && sats[2]["ss"] == nil)

        // ?POLL: the latest TPV and SKY of every device.
        client.send("?POLL;")
        let poll = try #require(client.next("POLL"))
        #expect(poll["active"] as? Int == 1)
        #expect((poll["tpv"] as? [[String: Any]])?.first?["climb"] as? Double == 0.5)
        #expect((poll["sky"] as? [[String: Any]])?.first?["nSat"] as? Int == 3)
        #expect(await waitUntil(timeout: 5) { server.counters.reportsSent >= 4 })
        #expect(server.counters.fixesTaken == 2 && server.counters.skyViewsTaken == 1)
    }

    @Test func requestsSplitAnywhereAreAnsweredAlike() async throws {
        let server = try await RunningGpsdServer()
        defer { Task { await server.stop() } }
        server.send(sampleFix(), topic: "obs.fix.gps0", at: 1_549_332_594)
        #expect(await waitUntil(timeout: 5) { server.counters.fixesTaken == 1 })
        let client = try LineClient(port: server.port)
        _ = client.next("VERSION")
        // Byte by byte, several requests in one piece, white space and stray semicolons.
        for byte in "?DEVICES;\r\n".utf8 { client.send(String(decoding: [byte], as: UTF8.self)) ; try await Task.sleep(for: .milliseconds(2)) }
        let devices = try #require(client.next("DEVICES"))
        #expect((devices["devices"] as? [[String: Any]])?.map { $0["path"] as? String } == ["gps0"])
        client.send(" ;?VERSION;?DEVICE;?WATCH={\"class\":\"WATCH\",\"enable\":true,\"device\":\"gps0\"}?WATCH;")
        #expect(client.report()?["class"] as? String == "VERSION")
        #expect(client.report()?["path"] as? String == "gps0")
        #expect(client.report()?["class"] as? String == "DEVICES")
        let watch = try #require(client.report())
        #expect(watch["class"] as? String == "WATCH" && watch["device"] as? String == "gps0" && watch["json"] as? Bool == true)
        #expect(client.report()?["enable"] as? Bool == true)
    }

    @Test func refusalsAreErrorReportsAndCounted() async throws {
        let server = try await RunningGpsdServer()
        defer { Task { await server.stop() } }
        let client = try LineClient(port: server.port)
        _ = client.next("VERSION")
        client.send("?FOO;")
        #expect(client.report()?["message"] as? String == "Unrecognized request '?FOO'")
        client.send("?DEVICE;")
        #expect((client.report()?["message"] as? String)?.hasPrefix("No devices") == true)
        client.send("?WATCH={\"enable\":1};")
        #expect(client.report()?["message"] as? String == "Invalid WATCH: 'enable' must be true or false")
        client.send("?WATCH={\"enable\":true,\"bogus\":true};")
        #expect(client.report()?["message"] as? String == "Invalid WATCH: unknown attribute 'bogus'")
        client.send("?WATCH={\"enable\":true,\"nmea\":true};")
        let nmea = try #require(client.next("ERROR"))
        #expect((nmea["message"] as? String)?.hasPrefix("No NMEA to pass through") == true)
        let watch = try #require(client.next("WATCH"))
        #expect(watch["nmea"] as? Bool == false && watch["json"] as? Bool == true && watch["enable"] as? Bool == true)
        server.send(sampleFix(), topic: "obs.fix.gps0", at: 1)
        #expect(client.next("TPV") != nil)
        client.send("?DEVICE={\"path\":\"gps0\",\"bps\":9600};")
        #expect((client.next("ERROR")?["message"] as? String)?.contains("does not change a device's settings over gpsd's protocol (bps)") == true)
        client.send("?DEVICE={\"path\":\"gps9\"};")
        #expect((client.next("ERROR")?["message"] as? String)?.hasPrefix("No device 'gps9'") == true)
        #expect(await waitUntil(timeout: 5) { server.counters.badRequests == 7 })
        // The connection still serves.
        client.send("?VERSION;")
        #expect(client.next("VERSION") != nil)
    }

    /// NMEA pass-through: a source that passes its sentences on (`obs.nmea`) serves clients
    /// watching with nmea (or raw) its sentences as received, each with CR LF; JSON only if asked.
    @Test func sentencesPassThroughToClientsWatchingNMEA() async throws {
        let server = try await RunningGpsdServer()
        defer { Task { await server.stop() } }
        let rmc = "$GNRMC,020935.000,A,4404.1351,N,12118.8556,W,0.04,359.11,050219,,,A*6C"
        server.send(NMEASentence(source: "gps0", sentence: rmc), topic: "obs.nmea.gps0", at: 1)
        #expect(await waitUntil(timeout: 5) { server.counters.sentencesTaken == 1 })
        let nmea = try LineClient(port: server.port)
        nmea.send("?WATCH={\"enable\":true,\"nmea\":true};")
        let watch = try #require(nmea.next("WATCH"))
        #expect(watch["nmea"] as? Bool == true && watch["json"] as? Bool == false)
        let both = try LineClient(port: server.port)
        both.send("?WATCH={\"enable\":true,\"json\":true,\"raw\":1};")
        #expect(both.next("WATCH")?["raw"] as? Int == 1)
        let gga = "$GPGGA,020936.000,4404.1351,N,12118.8557,W,1,08,0.9,1123.9,M,-19.6,M,,0000*5C"
        server.send(NMEASentence(source: "gps0", sentence: gga), topic: "obs.nmea.gps0", at: 2)
        server.send(sampleFix(), topic: "obs.fix.gps0", at: 2)
        // The NMEA-only client gets the sentence, exactly, and no TPV.
        #expect(nmea.line() == gga)
        server.send(NMEASentence(source: "gps0", sentence: rmc), topic: "obs.nmea.gps0", at: 3)
        #expect(nmea.line() == rmc)
        #expect(both.line() == gga)
        #expect(both.next("TPV") != nil)
        #expect(both.line() == rmc)
        // A device that passes no sentences: an ERROR, and the watch goes on without NMEA.
        server.send(sampleFix("gps1"), topic: "obs.fix.gps1", at: 4)
        #expect(await waitUntil(timeout: 5) { server.counters.fixesTaken == 2 })
        let other = try LineClient(port: server.port)
        other.send("?WATCH={\"enable\":true,\"nmea\":true,\"device\":\"gps1\"};")
        #expect((other.next("ERROR")?["message"] as? String)?.hasPrefix("No NMEA to pass through") == true)
        #expect(other.next("WATCH")?["nmea"] as? Bool == false)
    }

    @Test func aDeviceFilterServesThatDeviceOnly() async throws {
        let server = try await RunningGpsdServer()
        defer { Task { await server.stop() } }
        let client = try LineClient(port: server.port)
        client.send("?WATCH={\"enable\":true,\"json\":true,\"device\":\"gps1\"};")
        _ = client.next("WATCH")
        server.send(sampleFix("gps0"), topic: "obs.fix.gps0", at: 1)
        server.send(sampleFix("gps1", lat: 10), topic: "obs.fix.gps1", at: 2)
        let tpv = try #require(client.next("TPV"))
        #expect(tpv["device"] as? String == "gps1" && tpv["lat"] as? Double == 10)
    }

    @Test func devicesPastMaxDevicesAreDroppedAndCounted() async throws {
        let server = try await RunningGpsdServer { $0.maxDevices = 2 }
        defer { Task { await server.stop() } }
        for i in 0..<5 { server.send(sampleFix("gps\(i)"), topic: "obs.fix.gps\(i)", at: Double(i)) }
        server.send(sampleFix("gps1"), topic: "obs.fix.gps1", at: 9)
        #expect(await waitUntil(timeout: 5) { server.counters.droppedTooManyDevices == 3 })
        let client = try LineClient(port: server.port)
        client.send("?DEVICES;")
        #expect((client.next("DEVICES")?["devices"] as? [[String: Any]])?.map { $0["path"] as? String } == ["gps0", "gps1"])
    }

    @Test func onlyConfiguredSourcesAreServed() async throws {
        let server = try await RunningGpsdServer { $0.sources = ["gps1"] }
        defer { Task { await server.stop() } }
        let client = try LineClient(port: server.port)
        client.send("?WATCH={\"enable\":true};")
        _ = client.next("WATCH")
        server.send(sampleFix("gps0"), topic: "obs.fix.gps0", at: 1)
        server.send(sampleFix("gps1", lat: 10), topic: "obs.fix.gps1", at: 2)
        #expect(client.next("TPV")?["device"] as? String == "gps1")
        client.send("?DEVICES;")
        #expect((client.next("DEVICES")?["devices"] as? [[String: Any]])?.count == 1)
    }
}

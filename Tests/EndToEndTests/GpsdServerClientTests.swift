import Foundation
import LocusTestKit
import Testing

/// Programs written for gpsd, from Debian's packages, against `locus run` with a gpsd-server
/// sink: gpspipe, Python's gps module and cgps work as against gpsd, and for the same NMEA log
/// Locus's TPV reports carry gpsd's fields with gpsd's values.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct GpsdServerClientTests {
    static let log = E2E.fixture("gpsd-server/sirfstarv-nmea.log")

    static func start(_ dir: String, port: Int, replay: String) async throws -> ChildProcess {
        try """
        hub:
          state_directory: \(dir)/state
        sources:
          - {type: replay, id: gps0, file: \(log), \(replay)}
        sinks:
          - {type: gpsd-server, id: gpsd, listen: "127.0.0.1:\(port)"}
        """.write(toFile: dir + "/config.yaml", atomically: true, encoding: .utf8)
        let locus = try ChildProcess(E2E.binary, ["run", dir + "/config.yaml"], directory: dir, environment: ["LOCUS_RUNTIME_DIR": dir])
        #expect(await waitUntil(timeout: 20) { locus.stderr.contains("gpsd-server listening") }, "\(locus.stderr)")
        return locus
    }

    static func objects(_ text: String) -> [[String: Any]] {
        text.split(whereSeparator: \.isNewline).compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }

    /// A child that does not handle the runner's blocked SIGTERM: killed.
    static func kill9(_ child: ChildProcess) async {
        if child.process.isRunning { kill(child.process.processIdentifier, SIGKILL) }
        _ = await child.wait(timeout: 5)
    }

    @Test func gpspipeAndPythonsGpsModuleReadLocusAsGpsd() async throws {
        let dir = E2E.temporaryDirectory()
        let port = try LoopbackPort.free()
        let locus = try await Self.start(dir, port: port, replay: "speed: 5, loop: true")

        // gpspipe -w -n 20: the first 20 JSON lines, as gpsd's users script it.
        let pipe = try await runToEnd("/usr/bin/gpspipe", ["-w", "-n", "20", "127.0.0.1:\(port)"], directory: dir, timeout: 30)
        #expect(pipe.status == 0, "\(pipe.stderr)")
        let lines = pipe.stdout.split(whereSeparator: \.isNewline)
        let reports = Self.objects(pipe.stdout)
        #expect(lines.count == 20 && reports.count == 20, "\(pipe.stdout)")
        #expect(reports.prefix(3).map { $0["class"] as? String } == ["VERSION", "DEVICES", "WATCH"])
        let tpvs = reports.filter { $0["class"] as? String == "TPV" }
        #expect(tpvs.count >= 5)
        for t in tpvs {
            #expect(t["device"] as? String == "gps0" && t["mode"] as? Int == 3)
            #expect(abs((t["lat"] as? Double ?? 0) - 44.0689) < 0.001 && abs((t["lon"] as? Double ?? 0) + 121.3142) < 0.001)
        }
        #expect(reports.contains { $0["class"] as? String == "SKY" && ($0["satellites"] as? [Any])?.isEmpty == false })

        // Python's gps module: gps.gps(mode=WATCH_ENABLE) and its session view.
        let python = try await runToEnd(E2E.python, [E2E.script("gps_module_client.py"), "127.0.0.1", String(port), "5"],
                                        directory: dir, timeout: 30)
        #expect(python.status == 0, "\(python.stderr)")
        let out = Self.objects(python.stdout)
        let fromModule = out.filter { $0["class"] as? String == "TPV" }
        #expect(fromModule.count >= 5, "\(python.stdout)\(python.stderr)")
        for t in fromModule {
            #expect(t["mode"] as? Int == 3 && abs((t["lat"] as? Double ?? 0) - 44.0689) < 0.001)
            #expect((t["time"] as? String)?.hasPrefix("2019-02-05T02:") == true)
        }
        let session = try #require(out.last)
        #expect(session["class"] as? String == "SESSION" && session["mode"] as? Int == 3)
        #expect(abs((session["lat"] as? Double ?? 0) - 44.0689) < 0.001)
        #expect((session["satellites"] as? Int ?? 0) > 0 && (session["used"] as? Int ?? 0) > 0)

        // The plugin README's one-liner, with Debian's python3 as it says (on this port, not 2947).
        let readme = try String(contentsOfFile: E2E.repoRoot + "/Plugins/GpsdServer/README.md", encoding: .utf8)
        let line = try #require(readme.components(separatedBy: "\n").first { $0.hasPrefix("python3 -c 'import gps") })
        let code = try #require(line.split(separator: "'").dropFirst().first.map(String.init))
        let oneLiner = try await runToEnd("/usr/bin/python3", ["-c", code.replacingOccurrences(of: "gps.gps(", with: "gps.gps(port=\"\(port)\", ")],
                                          directory: dir, timeout: 30)
        #expect(oneLiner.status == 0 && oneLiner.stdout.contains("VERSION"), "\(oneLiner.stdout)\(oneLiner.stderr)")
        #expect(await locus.terminate().status == 0)
    }

    @Test func cgpsShowsTheFixOnItsScreen() async throws {
        let dir = E2E.temporaryDirectory()
        let port = try LoopbackPort.free()
        let locus = try await Self.start(dir, port: port, replay: "speed: 5, loop: true")
        let cgps = try await runToEnd(E2E.python, [E2E.script("cgps_screen.py"), "127.0.0.1:\(port)", "20", "44.0689", "121.314", "3D"],
                                      directory: dir, timeout: 60)
        let screen = cgps.stdout
        #expect(cgps.status == 0, "\(cgps.stderr)")
        // cgps's own screen: the position from TPV, its fix mode, and satellites from SKY.
        #expect(screen.contains("44.0689") && screen.contains("121.314"), "cgps screen:\n\(screen)")
        #expect(screen.contains("3D"), "cgps screen:\n\(screen)")
        #expect(await locus.terminate().status == 0)
    }

    /// NMEA pass-through: an nmea-serial source on a pty (socat) with publish_sentences, and
    /// gpspipe -r (raw: the receiver's sentences) reading them from the gpsd-server sink.
    @Test func gpspipeRawGetsTheReceiversSentencesAsSent() async throws {
        let dir = E2E.temporaryDirectory()
        let port = try LoopbackPort.free()
        let feeder = try ChildProcess(E2E.python, [E2E.script("nmea_pty_feed.py"), dir, Self.log, "0.005"], directory: dir)
        #expect(await waitUntil(timeout: 10) { feeder.stdout.contains("feeding") }, "\(feeder.stderr)")
        try """
        hub:
          state_directory: \(dir)/state
        sources:
          - {type: nmea-serial, id: gps0, device: \(dir)/gps, baud: 115200, publish_sentences: true}
        sinks:
          - {type: gpsd-server, id: gpsd, listen: "127.0.0.1:\(port)"}
        """.write(toFile: dir + "/config.yaml", atomically: true, encoding: .utf8)
        let locus = try ChildProcess(E2E.binary, ["run", dir + "/config.yaml"], directory: dir, environment: ["LOCUS_RUNTIME_DIR": dir])
        #expect(await waitUntil(timeout: 20) { locus.stderr.contains("gpsd-server listening") }, "\(locus.stderr)")
        // A device appears with its first sentence; then a raw watch has NMEA to pass.
        var appeared = false
        for _ in 0..<40 where !appeared {
            let devices = try await runToEnd("/usr/bin/gpspipe", ["-w", "-n", "3", "127.0.0.1:\(port)"], directory: dir, timeout: 10)
            appeared = devices.stdout.contains("\"path\":\"gps0\"")
            if !appeared { try await Task.sleep(for: .milliseconds(250)) }
        }
        #expect(appeared, "\(locus.stderr)")
        let raw = try await runToEnd("/usr/bin/gpspipe", ["-r", "-n", "60", "127.0.0.1:\(port)"], directory: dir, timeout: 30)
        #expect(await locus.terminate().status == 0)
        _ = await feeder.terminate()
        #expect(raw.status == 0, "\(raw.stderr)")
        let logLines = try String(contentsOfFile: Self.log, encoding: .utf8).split(whereSeparator: \.isNewline).map(String.init)
            .filter { $0.hasPrefix("$") }
        let sentences = raw.stdout.split(whereSeparator: \.isNewline).map(String.init).filter { $0.hasPrefix("$") }
        #expect(sentences.count >= 40, "\(raw.stdout)")
        // Each exactly as the receiver sent it, none lost or reordered: consecutive lines of the log.
        // (GSA lines repeat in the log: any place where all of them follow one another.)
        let first = try #require(sentences.first)
        let starts = logLines.indices.filter { logLines[$0] == first }
        let fits = starts.contains { start in
            sentences.enumerated().allSatisfy { i, s in s == logLines[(start + i) % logLines.count] }
        }
        #expect(fits, "the sentences are not consecutive lines of the log as sent: \(sentences.prefix(10))")
        #expect(!raw.stdout.contains("\"class\":\"ERROR\""), "\(raw.stdout)")
    }

    /// The plugin's sample.yaml, as a user copies it (on a free port instead of gpsd's), with a
    /// source: `locus check` accepts it and gpspipe reads fixes from it.
    @Test func theSampleConfigServesGpspipe() async throws {
        let dir = E2E.temporaryDirectory()
        let port = try LoopbackPort.free()
        let sample = try String(contentsOfFile: E2E.repoRoot + "/Plugins/GpsdServer/sample.yaml", encoding: .utf8)
        #expect(sample.contains("\"127.0.0.1:2947\""))
        try """
        hub:
          state_directory: \(dir)/state
        sources:
          - {type: replay, id: gps0, file: \(Self.log), speed: 5, loop: true}
        \(sample.replacingOccurrences(of: "127.0.0.1:2947", with: "127.0.0.1:\(port)"))
        """.write(toFile: dir + "/config.yaml", atomically: true, encoding: .utf8)
        let check = try await runToEnd(E2E.binary, ["check", dir + "/config.yaml"], directory: dir)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        let locus = try ChildProcess(E2E.binary, ["run", dir + "/config.yaml"], directory: dir, environment: ["LOCUS_RUNTIME_DIR": dir])
        #expect(await waitUntil(timeout: 20) { locus.stderr.contains("gpsd-server listening") }, "\(locus.stderr)")
        let pipe = try await runToEnd("/usr/bin/gpspipe", ["-w", "-n", "8", "127.0.0.1:\(port)"], directory: dir, timeout: 30)
        #expect(Self.objects(pipe.stdout).contains { $0["class"] as? String == "TPV" && $0["device"] as? String == "gps0" }, "\(pipe.stdout)")
        #expect(await locus.terminate().status == 0)
    }

    /// `fixes: standard`: the standard service's chosen locations (location.update) become the
    /// TPVs, reported as the source they came from, and sky views still come from the source.
    @Test func standardLocationsServedAsTPV() async throws {
        let dir = E2E.temporaryDirectory()
        let port = try LoopbackPort.free()
        try """
        hub:
          state_directory: \(dir)/state
        sources:
          - {type: replay, id: gps0, file: \(Self.log), speed: 5, loop: true}
        services:
          - {type: standard, id: here, distance_filter: 0}
        sinks:
          - {type: gpsd-server, id: gpsd, listen: "127.0.0.1:\(port)", fixes: standard}
        """.write(toFile: dir + "/config.yaml", atomically: true, encoding: .utf8)
        let locus = try ChildProcess(E2E.binary, ["run", dir + "/config.yaml"], directory: dir, environment: ["LOCUS_RUNTIME_DIR": dir])
        #expect(await waitUntil(timeout: 20) { locus.stderr.contains("gpsd-server listening") }, "\(locus.stderr)")
        let pipe = try await runToEnd("/usr/bin/gpspipe", ["-w", "-n", "12", "127.0.0.1:\(port)"], directory: dir, timeout: 30)
        let reports = Self.objects(pipe.stdout)
        let tpvs = reports.filter { $0["class"] as? String == "TPV" }
        #expect(!tpvs.isEmpty, "\(pipe.stdout)")
        for t in tpvs {
            #expect(t["device"] as? String == "gps0" && t["mode"] as? Int == 3)
            #expect(abs((t["lat"] as? Double ?? 0) - 44.0689) < 0.001)
        }
        let devices = reports.flatMap { r in r["class"] as? String == "DEVICES" ? (r["devices"] as? [[String: Any]] ?? []) : [r] }
        #expect(devices.contains { $0["class"] as? String == "DEVICE" && $0["driver"] as? String == "Locus standard" }, "\(pipe.stdout)")
        #expect(await locus.terminate().status == 0)
    }

    /// The last TPV gpsd or Locus wrote for each time (gpsd may write several per epoch).
    static func lastTPVByTime(_ reports: [[String: Any]]) -> [String: [String: Any]] {
        var out: [String: [String: Any]] = [:]
        for r in reports where r["class"] as? String == "TPV" {
            if let t = r["time"] as? String { out[t] = r }
        }
        return out
    }

    @Test func tpvReportsAgreeWithRealGpsdForTheSameLog() async throws {
        let dir = E2E.temporaryDirectory()
        let ports = try LoopbackPort.free(count: 2)

        let lastTime = "2019-02-05T02:10:33.000Z"
        let reference = try await runToEnd(E2E.python, [E2E.script("gpsd_reference.py"), Self.log, String(ports[0]), lastTime],
                                           directory: dir, timeout: 90)
        let gpsd = Self.lastTPVByTime(Self.objects(reference.stdout))
        try #require(gpsd.count >= 30, "gpsd gave \(gpsd.count) epochs: \(reference.stderr)")

        let locus = try await Self.start(dir, port: ports[1], replay: "speed: 10, start_delay: 3")
        let pipe = try ChildProcess("/usr/bin/gpspipe", ["-w", "127.0.0.1:\(ports[1])"], directory: dir)
        #expect(await waitUntil(timeout: 60) { pipe.stdout.contains(lastTime) }, "\(pipe.stdout.suffix(2000))")
        await Self.kill9(pipe)
        #expect(await locus.terminate().status == 0)
        let ours = Self.lastTPVByTime(Self.objects(pipe.stdout))
        #expect(ours.count == 59, "Locus gave \(ours.count) epochs")

        // Fields gpsd writes that Locus does not, each for a reason (Plugins/GpsdServer/README.md):
        // ept, epx/epy, sep, epc, eps: gpsd's own error model (DOPs from its sky geometry × its
        // UERE), not a decoded value; magvar/magtrack: RMC's magnetic variation, not decoded.
        let gpsdOnly: Set<String> = ["ept", "epx", "epy", "sep", "epc", "eps", "magvar", "magtrack"]
        var compared = 0
        // gpsd's first report follows whatever part of an epoch reached it after gpspipe connected
        // (gpsfake was already playing): an RMC alone, so 2D. Locus read the whole epoch.
        for (time, g) in gpsd.sorted(by: { $0.key < $1.key }).dropFirst() {
            guard let l = ours[time] else { Issue.record("\(time): gpsd reported it, Locus did not"); continue }
            compared += 1
            let missing = Set(g.keys).subtracting(l.keys).subtracting(gpsdOnly)
            #expect(missing.isEmpty, "\(time): Locus lacks \(missing.sorted())")
            #expect(l["mode"] as? Int == g["mode"] as? Int, "\(time): mode")
            #expect(l["status"] as? Int == g["status"] as? Int, "\(time): status")
            func near(_ key: String, _ tolerance: Double) {
                guard let a = g[key] as? Double else { return }
                guard let b = l[key] as? Double else { Issue.record("\(time): \(key) missing"); return }
                #expect(abs(a - b) <= tolerance, "\(time): \(key) gpsd \(a), Locus \(b)")
            }
            // Within the last digit either side writes (lat/lon 9 decimals; altitudes as received,
            // 0.1 m; speed converted from knots, 3 decimals; track 2 decimals as received).
            near("lat", 1e-8); near("lon", 1e-8)
            near("altHAE", 1e-3); near("altMSL", 1e-3); near("alt", 1e-3); near("geoidSep", 1e-3)
            near("speed", 1e-3); near("track", 1e-3)
            // gpsd and Locus both derive climb from consecutive altitudes.
            near("climb", 1e-3)
            // Present on both sides, different models (gpsd: DOP × UERE; Locus: 2 × its 1-sigma).
            for key in ["eph", "epv"] where g[key] != nil { #expect(l[key] != nil, "\(time): \(key) missing") }
        }
        #expect(compared == gpsd.count - 1 && compared >= 30)
    }
}

import Foundation
import LocusCore
import Testing

/// Runs the built `locus` binary (found next to the test bundle, as the end-to-end tests do).
enum LocusBinary {
    static var path: String {
        if let b = ProcessInfo.processInfo.environment["LOCUS_BINARY"] { return b }
        let exe = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        var dir = exe.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("locus").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return FormatFixtures.directory + "/../../../.build/debug/locus"
    }

    /// Runs `locus args…` to completion (stdin from `stdin` if given).
    static func run(_ args: [String], stdin: String? = nil) throws -> (status: Int32, stdout: [UInt8], stderr: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        let scratch = NSTemporaryDirectory() + "locus-fmt-\(UUID().uuidString.prefix(8))"
        _ = FileManager.default.createFile(atPath: scratch + ".out", contents: nil)
        _ = FileManager.default.createFile(atPath: scratch + ".err", contents: nil)
        defer {
            try? FileManager.default.removeItem(atPath: scratch + ".out")
            try? FileManager.default.removeItem(atPath: scratch + ".err")
        }
        p.standardOutput = FileHandle(forWritingAtPath: scratch + ".out")
        p.standardError = FileHandle(forWritingAtPath: scratch + ".err")
        p.standardInput = stdin.flatMap { FileHandle(forReadingAtPath: $0) } ?? FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        let out = (try? Data(contentsOf: URL(fileURLWithPath: scratch + ".out"))) ?? Data()
        let err = (try? String(contentsOfFile: scratch + ".err", encoding: .utf8)) ?? ""
        return (p.terminationStatus, Array(out), err)
    }
}

/// Output lines decoded with the codec.
func decodeOutput(_ bytes: [UInt8]) throws -> [(topic: String, envelope: Envelope)] {
    try bytes.split(separator: 0x0A).map { line in
        let (topic, body) = try RecordingLine.split(Array(line))
        return (topic, try EnvelopeCodec.decode(body, registry: .core, requireKnownType: true))
    }
}

@Suite(.serialized) struct DecodeCommandTests {
    @Test(arguments: [
        ("bu353s4.log", 25, 5, [String]()),
        ("bu353s4.gpsd.jsonl", 25, 5, []),
        ("cerknicko-jezero.gpx", 296, 0, []),
        ("korita-zbevnica.gpx", 513, 0, ["--source", "hike"]),
        ("bu353s4.log", 25, 0, ["--no-sky", "--format", "nmea"]),
    ])
    func decodesFixture(_ name: String, _ fixes: Int, _ skies: Int, _ extra: [String]) throws {
        let r = try LocusBinary.run(["decode", FormatFixtures.path(name)] + extra)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.isEmpty)
        let lines = try decodeOutput(r.stdout)
        let source = extra.contains("hike") ? "hike" : "gps0"
        #expect(lines.filter { $0.topic == "obs.fix.\(source)" }.count == fixes)
        #expect(lines.filter { $0.topic == "obs.sky.\(source)" }.count == skies)
        #expect(lines.count == fixes + skies)
        #expect(lines.map(\.envelope.seq) == Array(1...UInt64(lines.count)))
        #expect(lines.allSatisfy { $0.envelope.producer == source })
        #expect(lines.compactMap { $0.envelope.payload.as(Fix.self) }.allSatisfy { $0.source == source })
    }

    @Test func standardInputAndStats() throws {
        let r = try LocusBinary.run(["decode", "-", "--stats"], stdin: FormatFixtures.path("korita-zbevnica.gpx"))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try decodeOutput(r.stdout).count == 513)
        #expect(r.stderr.contains("format=gpx"))
        #expect(r.stderr.contains("fixes=513"))
        #expect(r.stderr.contains("points_without_time=358"))
    }

    @Test func locusRecordingRoundTrip() throws {
        let first = try LocusBinary.run(["decode", FormatFixtures.path("bu353s4.gpsd.jsonl")])
        let path = FormatFixtures.temporaryFile(String(decoding: first.stdout, as: UTF8.self), suffix: ".jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let second = try LocusBinary.run(["decode", path])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout == first.stdout)
    }

    @Test func nmeaWithoutDateWarns() throws {
        let text = try FormatFixtures.text("bu353s4.log").split(whereSeparator: \.isNewline).filter { !$0.hasPrefix("$GPRMC") }.joined(separator: "\n")
        let path = FormatFixtures.temporaryFile(text, suffix: ".nmea")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = try LocusBinary.run(["decode", path])
        #expect(r.status == 0)
        // Nothing is guessed: no fix and no sky view without a date.
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.contains("--date"))
        let dated = try LocusBinary.run(["decode", path, "--date", "2014-12-31", "--no-sky"])
        let lines = try decodeOutput(dated.stdout)
        #expect(lines.count == 25)
        #expect(lines.first?.envelope.time == EventTime(iso8601: "2014-12-31T03:07:19Z"))
    }

    @Test(arguments: [["--format", "kml"], ["--date", "31.12.2014"], ["--source", "Bad Id"]])
    func usageErrors(_ extra: [String]) throws {
        let r = try LocusBinary.run(["decode", FormatFixtures.path("bu353s4.log")] + extra)
        #expect(r.status == 2)
        #expect(r.stdout.isEmpty)
    }

    @Test func unreadableInput() throws {
        let r = try LocusBinary.run(["decode", "/nonexistent/track.gpx"])
        #expect(r.status == 1)
        #expect(r.stderr.hasPrefix("locus decode: "))
        let bad = FormatFixtures.temporaryFile("this is not a track\n", suffix: ".txt")
        defer { try? FileManager.default.removeItem(atPath: bad) }
        let r2 = try LocusBinary.run(["decode", bad])
        #expect(r2.status == 1)
        #expect(r2.stderr.contains("--format"))
    }

    @Test func helpListsFormats() throws {
        let r = try LocusBinary.run(["decode", "--help"])
        #expect(r.status == 0)
        let text = String(decoding: r.stdout, as: UTF8.self)
        for f in ["nmea", "gpsd", "gpx", "locus", "--no-sky", "--date"] { #expect(text.contains(f)) }
    }
}

import Foundation
import LocusCore
import LocusPlugins
import LocusRuntime
import Logging
import LocusTestKit
import Testing

/// The golden-file cases of `Tests/Golden/` (see its README): each runs through `locus replay`,
/// in-process, and — when short — at 60× through the daemon, and every run must give the events
/// of `expected.jsonl`. Regenerate after a reviewed change with `make golden`.
@Suite struct GoldenReplayTests {
    static let root = E2E.repoRoot + "/Tests/Golden"
    static let cases: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
        .filter { FileManager.default.fileExists(atPath: root + "/" + $0 + "/config.yaml") }.sorted()
    /// Inputs spanning at most this much recorded time also run live at 60× (40 s each).
    static let liveSpanLimit = 40.0 * 60

    @Test func everyCaseIsComplete() {
        #expect(!Self.cases.isEmpty)
        for c in Self.cases {
            for f in ["config.yaml", "input.jsonl", "expected.jsonl"] {
                #expect(FileManager.default.fileExists(atPath: "\(Self.root)/\(c)/\(f)"), "\(c) has no \(f)")
            }
        }
    }

    @Test(arguments: cases)
    func locusReplayGivesTheExpectedEvents(name: String) async throws {
        let dir = Self.root + "/" + name
        let r = try await runToEnd(E2E.binary, ["replay", dir + "/input.jsonl", "--config", dir + "/config.yaml"], directory: dir)
        #expect(r.status == 0, "\(r.stderr)")
        let expected = try String(contentsOfFile: dir + "/expected.jsonl", encoding: .utf8)
        #expect(!expected.isEmpty, "\(name): expected.jsonl is empty — a golden case must show the service doing something")
        let d = GoldenComparison.difference(stream: r.stdout, expected)
        #expect(d == nil, "\(name): \(d ?? "")\n(after a reviewed change: tools/update-golden.sh \(name))")

        // Every event validates against its schema.
        let out = E2E.temporaryDirectory() + "/out.jsonl"
        try r.stdout.write(toFile: out, atomically: true, encoding: .utf8)
        let v = try await runToEnd(E2E.python, [E2E.repoRoot + "/tools/validate_messages.py", out], directory: dir)
        #expect(v.status == 0, "\(name): \(v.stdout)\(v.stderr)")
    }

    @Test(arguments: cases)
    func inProcessGivesTheExpectedEvents(name: String) throws {
        let dir = Self.root + "/" + name
        let actual = try GoldenInProcess.run(config: dir + "/config.yaml", input: dir + "/input.jsonl")
        let expected = try String(contentsOfFile: dir + "/expected.jsonl", encoding: .utf8)
        let d = GoldenComparison.difference(stream: actual, expected)
        #expect(d == nil, "\(name) in-process: \(d ?? "")")
    }

    /// Issue 31: a service restarted from its committed state after every message it handles
    /// (`ServiceDriver`'s restarts, in `locus replay`'s pipeline) gives the same events.
    @Test(arguments: cases)
    func restartingEveryServiceAfterEveryMessageGivesTheExpectedEvents(name: String) throws {
        let dir = Self.root + "/" + name
        let actual = try GoldenCase(directory: dir).run(plugins: BuiltinPlugins.all, restartingServices: true)
        let expected = try String(contentsOfFile: dir + "/expected.jsonl", encoding: .utf8)
        let d = GoldenComparison.difference(stream: actual, expected)
        #expect(d == nil, "\(name) restarted after every message: \(d ?? "")")
    }

    @Test(.timeLimit(.minutes(3)), arguments: cases)
    func sixtyTimesRealTimeThroughTheDaemonGivesTheSameEvents(name: String) async throws {
        let dir = Self.root + "/" + name
        let input = dir + "/input.jsonl"
        guard let span = GoldenLive.span(of: input), span <= Self.liveSpanLimit else { return }
        let expected = try String(contentsOfFile: dir + "/expected.jsonl", encoding: .utf8)
        let live = try await GoldenLive.run(caseDirectory: dir, speed: 60, timeout: span / 60 + 60)
        let byProducer = GoldenLive.groupByProducer(GoldenComparison.lines(expected))
        let liveByProducer = GoldenLive.groupByProducer(live)
        #expect(Set(liveByProducer.keys) == Set(byProducer.keys), "\(name) at 60×: producers \(liveByProducer.keys.sorted()) vs \(byProducer.keys.sorted())")
        for (producer, lines) in byProducer {
            let d = GoldenComparison.difference(stream: (liveByProducer[producer] ?? []).joined(separator: "\n"), lines.joined(separator: "\n"))
            #expect(d == nil, "\(name) at 60×, producer \(producer): \(d ?? "")")
        }
    }

    @Test func atLeastOneCaseIsShortEnoughToRunLive() {
        let short = Self.cases.filter { (GoldenLive.span(of: "\(Self.root)/\($0)/input.jsonl") ?? .infinity) <= Self.liveSpanLimit }
        #expect(!short.isEmpty, "no golden case is short enough for the 60× determinism run")
    }
}

/// `locus replay`'s pipeline in this process (LocusTestKit's `GoldenCase`, as plugin packages use it).
enum GoldenInProcess {
    static func run(config: String, input: String) throws -> String {
        precondition(config.hasSuffix("/config.yaml") && input.hasSuffix("/input.jsonl"))
        return try GoldenCase(directory: String(config.dropLast("/config.yaml".count))).run(plugins: BuiltinPlugins.all)
    }
}

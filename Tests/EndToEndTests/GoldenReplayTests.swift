import Foundation
import Testing

/// Golden cases: `Fixtures/golden/<case>/{config.yaml, input.jsonl, expected.jsonl}`. `locus replay`
/// must reproduce expected.jsonl byte for byte. Regenerate one after an intended change with
/// `LOCUS_UPDATE_GOLDEN=1 swift test --filter GoldenReplay` and review the diff.
@Suite struct GoldenReplayTests {
    static let cases: [String] = {
        let dir = E2E.fixture("golden")
        return ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }()

    @Test func thereAreGoldenCases() { #expect(!Self.cases.isEmpty) }

    @Test(arguments: cases)
    func replayMatchesExpected(name: String) async throws {
        let dir = E2E.fixture("golden/" + name)
        let r = try await runToEnd(E2E.binary, ["replay", dir + "/input.jsonl", "--config", dir + "/config.yaml"], directory: dir)
        #expect(r.status == 0, "\(r.stderr)")
        if ProcessInfo.processInfo.environment["LOCUS_UPDATE_GOLDEN"] == "1" {
            try r.stdout.write(toFile: dir + "/expected.jsonl", atomically: true, encoding: .utf8)
        }
        let expected = try String(contentsOfFile: dir + "/expected.jsonl", encoding: .utf8)
        #expect(!expected.isEmpty)
        #expect(r.stdout == expected)
        // Deterministic: a second run gives the same bytes.
        let again = try await runToEnd(E2E.binary, ["replay", dir + "/input.jsonl", "--config", dir + "/config.yaml"], directory: dir)
        #expect(again.stdout == r.stdout)
        // And every event validates against the schemas.
        let out = E2E.temporaryDirectory() + "/out.jsonl"
        try r.stdout.write(toFile: out, atomically: true, encoding: .utf8)
        let v = try await runToEnd(E2E.python, [E2E.repoRoot + "/tools/validate_messages.py", out], directory: dir)
        #expect(v.status == 0, "\(v.stdout)\(v.stderr)")
    }
}

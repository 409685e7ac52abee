import Foundation
import Testing

/// Issue 50 item 9: the README opens as a reader expects: the title, one sentence saying what
/// Locus is, then the two commands (`make run`, `make test`).
@Suite struct ReadmeOpeningTests {
    @Test func titleThenASentenceThenTheTwoCommands() throws {
        let readme = try String(contentsOfFile: E2E.repoRoot + "/README.md", encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        try #require(lines.count > 6)
        #expect(lines[0].hasPrefix("# Locus"), "the first line is the title, not \(lines[0])")
        #expect(!lines[1].hasPrefix("```") && !lines[1].hasPrefix("#") && !lines[1].hasPrefix("|"),
                "a sentence follows the title, not \(lines[1])")
        guard let fence = lines.firstIndex(where: { $0.hasPrefix("```") }) else {
            Issue.record("no code block")
            return
        }
        #expect(fence > 1)
        #expect(lines[fence + 1].hasPrefix("make run") && lines[fence + 2].hasPrefix("make test"),
                "the first code block is the two commands: \(lines[fence + 1]) / \(lines[fence + 2])")
    }
}

import Foundation
import Testing

/// Issue 50 item 8: every build knows its commit, not only `make release`'s; `locus --version`
/// of the debug build the tests run names this checkout's commit and that commit's date.
@Suite struct VersionCommitTests {
    /// git's answer in the checkout, nil when git or the checkout is not there (a tarball).
    static func git(_ arguments: [String]) async throws -> String? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/git") else { return nil }
        let r = try await runToEnd("/usr/bin/git", ["-C", E2E.repoRoot] + arguments, directory: E2E.repoRoot,
                                   environment: ["TZ": "UTC"])
        return r.status == 0 ? r.stdout.trimmingCharacters(in: .whitespacesAndNewlines) : nil
    }

    @Test func versionNamesTheCheckoutsCommitAndItsDate() async throws {
        let r = try await runToEnd(E2E.binary, ["--version"], directory: E2E.temporaryDirectory())
        #expect(r.status == 0)
        let line = r.stdout.split(separator: "\n").first.map(String.init) ?? ""
        // `locus 0.1.0 (commit abc1234[-dirty], built 2026-11-29)`
        guard let open = line.range(of: "(commit "), let comma = line.range(of: ", built "), let close = line.lastIndex(of: ")") else {
            Issue.record("not a version line: \(line)")
            return
        }
        let commit = String(line[open.upperBound..<comma.lowerBound])
        let date = String(line[comma.upperBound..<close])
        guard let top = try await Self.git(["rev-parse", "--show-toplevel"]),
              URL(fileURLWithPath: top).resolvingSymlinksInPath().path == URL(fileURLWithPath: E2E.repoRoot).resolvingSymlinksInPath().path
        else {
            // Sources without git: the build says so rather than guessing.
            #expect(commit == "unknown", "\(line)")
            return
        }
        let hash = commit.hasSuffix("-dirty") ? String(commit.dropLast("-dirty".count)) : commit
        #expect(hash.count >= 7 && hash.allSatisfy(\.isHexDigit), "the build's commit, not \(commit): \(line)")
        // The build's commit is HEAD or, when a commit came after the build, one before it.
        #expect(try await Self.git(["merge-base", "--is-ancestor", hash, "HEAD"]) != nil, "\(hash) is not in this checkout's history")
        if ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"] == nil {
            let committed = try await Self.git(["log", "-1", "--date=format-local:%Y-%m-%d", "--format=%cd", hash])
            #expect(date == committed, "built \(date), the commit's date is \(committed ?? "?")")
        }
    }
}

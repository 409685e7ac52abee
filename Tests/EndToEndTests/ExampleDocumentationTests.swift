import Foundation
import Testing

/// Issue 30, item 10: what the example configs and the READMEs tell a new user agrees with the
/// files themselves and with the Makefile — a default named in a config's comments is the
/// default the file gives, every `make` target named exists, every path to the built `locus`
/// is where a Makefile target puts it.
@Suite struct ExampleDocumentationTests {
    static let configs = ["config.yaml", "examples/fleet/device.yaml", "examples/fleet/server.yaml", "examples/fleet/nats/group-server.yaml",
                          "examples/secure/config.yaml", "contrib/systemd/config.yaml"]

    static func read(_ path: String) throws -> String {
        try String(contentsOfFile: E2E.repoRoot + "/" + path, encoding: .utf8)
    }

    static func matches(_ pattern: String, in text: String) -> [[String]] {
        let regex = try! NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines])
        let ns = text as NSString
        return regex.matches(in: text, range: NSRange(location: 0, length: ns.length)).map { m in
            (0..<m.numberOfRanges).map { m.range(at: $0).location == NSNotFound ? "" : ns.substring(with: m.range(at: $0)) }
        }
    }

    /// `#   LOCUS_BROKER   the broker's host name (default 127.0.0.1)` names the default that
    /// every `${LOCUS_BROKER:-…}` of the file must give.
    @Test(arguments: configs) func defaultsNamedInCommentsAreTheFilesDefaults(_ path: String) throws {
        let text = try Self.read(path)
        let documented = Self.matches(#"^#\s+(LOCUS_[A-Z0-9_]+)\b.*\(default:?\s+([^,):;]+)"#, in: text)
        for d in documented {
            let (name, said) = (d[1], d[2].trimmingCharacters(in: .whitespaces))
            let given = Self.matches(#"\$\{\#(name):-([^}]*)\}"#, in: text).map { $0[1] }
            #expect(!given.isEmpty, "\(path): the comments name a default for \(name), which the file does not use")
            for g in given {
                #expect(g == said, "\(path): the comments say \(name) defaults to '\(said)', the file gives '${\(name):-\(g)}'")
            }
        }
    }

    /// Every `make TARGET` in a README or doc is a target of the Makefile (the repository's, or
    /// the one beside the document), and every path to the built `locus` is one a target of
    /// the Makefile writes: `make build` → .build/debug/locus, `make release` → its scratch path.
    @Test func makeTargetsAndBinaryPathsMatchTheMakefile() throws {
        let makefile = try Self.read("Makefile")
        let targets = Set(Self.matches(#"^([a-z][a-z-]*):"#, in: makefile).map { $0[1] })
        #expect(targets.isSuperset(of: ["build", "release", "run", "test"]))
        var binaries = [".build/debug/locus"]
        if let scratch = Self.matches(#"--scratch-path (\S+) -c release .*--product locus"#, in: makefile).first?[1] {
            binaries.append(scratch + "/release/locus")
        }
        #expect(binaries.count == 2, "make release's scratch path not found in the Makefile")

        let fm = FileManager.default
        var documents = ["README.md", "contrib/systemd/locus.service", "clients/python/README.md"]
        documents += ((try? fm.contentsOfDirectory(atPath: E2E.repoRoot + "/docs")) ?? []).filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }
        for example in (try? fm.contentsOfDirectory(atPath: E2E.repoRoot + "/examples")) ?? [] where example != "plugin-package" {
            if fm.fileExists(atPath: E2E.repoRoot + "/examples/\(example)/README.md") { documents.append("examples/\(example)/README.md") }
        }
        #expect(documents.contains("examples/fleet/README.md"))
        for path in documents {
            let text = try Self.read(path)
            // A Makefile beside the document has targets of its own (examples/c).
            let beside = URL(fileURLWithPath: E2E.repoRoot + "/" + path).deletingLastPathComponent().appendingPathComponent("Makefile").path
            let local = Set(((try? String(contentsOfFile: beside, encoding: .utf8)).map { Self.matches(#"^([a-z][a-z-]*):"#, in: $0) } ?? []).map { $0[1] })
            // `make run` in inline code, `make build` at the start of a line of a code block.
            var fenced: [String] = []
            var inFence = false
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") { inFence.toggle() } else if inFence { fenced.append(String(line)) }
            }
            let named = Self.matches(#"`make ([a-z][a-z-]*)`"#, in: text)
                + Self.matches(#"^\s*\$?\s*make ([a-z][a-z-]*)\b"#, in: fenced.joined(separator: "\n"))
            for n in named {
                #expect(targets.contains(n[1]) || local.contains(n[1]), "\(path) says 'make \(n[1])', which the Makefile does not have")
            }
            for p in Self.matches(#"(\.build[A-Za-z0-9_-]*/[a-z0-9_-]+/locus)(?![\w-])"#, in: text) {
                #expect(binaries.contains(p[1]), "\(path) names \(p[1]); the Makefile writes \(binaries.joined(separator: " and "))")
            }
        }
    }
}

import Foundation
import Testing

/// Runs the commands of docs/try-it.md as written and checks that `locus sub` prints what the
/// doc says you should see (issue 30, item 11).
///
/// The doc's convention, which this test reads:
/// - every ```sh block is preceded by a marker line `<!-- try-it: WALKTHROUGH [background] [ready=…] -->`
///   (a ```sh block without one fails `everyShellBlockIsMarked`, so no command escapes the test);
/// - blocks run in order with bash (`set -euo pipefail`) from the repository root; a `background`
///   block is a terminal left running (a process group of its own, killed at the end);
/// - `ready=file:PATH` waits until PATH exists, `ready=tcp:PORT` until 127.0.0.1:PORT accepts,
///   `ready=out:TEXT` until the block's stdout holds TEXT, before the next block runs;
/// - a ```text block after `<!-- try-it: WALKTHROUGH expect -->` lists lines the last background
///   block (`locus sub`) must print: each line is matched whole, `…` standing for any text and
///   `[producer#…]` for any sequence number.
///
/// Before running, the test replaces `/tmp/locus-try` with a private directory (and sets
/// LOCUS_TRY_DIR, which the configs in examples/try-it use), `.build/debug/locus` with the binary
/// under test and `/usr/bin/python3` with E2E.python; LOCUS_RUNTIME_DIR and LOCUS_STATE_DIR point
/// into the private directory. Nothing else in the commands is changed.
@Suite(.serialized) struct TryItWalkthroughTests {
    static let docPath = E2E.repoRoot + "/docs/try-it.md"

    struct Block {
        var walkthrough: String
        var kind: String          // "sh" or "text"
        var background = false
        var expect = false
        var ready: String?
        var body: String
        var line: Int
    }

    /// The fenced blocks of the doc with their markers; unmarked ```text blocks are kept with an empty walkthrough.
    static func blocks() throws -> [Block] {
        let lines = try String(contentsOfFile: docPath, encoding: .utf8).components(separatedBy: "\n")
        var out: [Block] = []
        var marker: (name: String, words: [String])?
        var i = 0
        while i < lines.count {
            let l = lines[i].trimmingCharacters(in: .whitespaces)
            if l.hasPrefix("<!-- try-it:"), l.hasSuffix("-->") {
                let words = l.dropFirst("<!-- try-it:".count).dropLast(3).split(separator: " ").map(String.init)
                marker = words.first.map { ($0, Array(words.dropFirst())) }
            } else if l.hasPrefix("```"), l.count > 3 {
                let kind = String(l.dropFirst(3))
                var body: [String] = []
                let start = i + 1
                i += 1
                while i < lines.count, lines[i].trimmingCharacters(in: .whitespaces) != "```" { body.append(lines[i]); i += 1 }
                var b = Block(walkthrough: marker?.name ?? "", kind: kind, body: body.joined(separator: "\n"), line: start)
                for w in marker?.words ?? [] {
                    if w == "background" { b.background = true } else if w == "expect" { b.expect = true } else if w.hasPrefix("ready=") { b.ready = String(w.dropFirst(6)) }
                }
                out.append(b)
                marker = nil
            } else if !l.isEmpty {
                marker = nil
            }
            i += 1
        }
        return out
    }

    @Test func everyShellBlockIsMarked() throws {
        let all = try Self.blocks()
        let unmarked = all.filter { $0.kind == "sh" && $0.walkthrough.isEmpty }
        #expect(unmarked.isEmpty, "```sh blocks without a try-it marker (lines \(unmarked.map(\.line)))")
        for name in ["serial", "gpsd", "ble"] {
            let mine = all.filter { $0.walkthrough == name }
            #expect(mine.contains { $0.kind == "sh" && $0.background }, "\(name): no background command")
            #expect(mine.contains { $0.kind == "text" && $0.expect && !$0.body.isEmpty }, "\(name): nothing said about what you should see")
        }
    }

    @Test func theConfigsItUsesPassCheck() async throws {
        let docs = try String(contentsOfFile: Self.docPath, encoding: .utf8)
        let files = try FileManager.default.contentsOfDirectory(atPath: E2E.repoRoot + "/examples/try-it").filter { $0.hasSuffix(".yaml") }.sorted()
        #expect(files == ["ble.yaml", "gpsd.yaml", "serial.yaml"])
        for f in files {
            #expect(docs.contains("examples/try-it/\(f)"), "docs/try-it.md does not use \(f)")
            let r = try await runToEnd(E2E.binary, ["check", "examples/try-it/\(f)"], directory: E2E.repoRoot, timeout: 30)
            #expect(r.status == 0, "\(f): \(r.stdout)\(r.stderr)")
        }
        // The data the doc plays, with its licence and origin beside it.
        for f in ["sirfstarv-nmea.log", "LICENSE-gpsd", "README.md"] {
            #expect(FileManager.default.fileExists(atPath: E2E.repoRoot + "/data/nmea/" + f), "data/nmea/\(f)")
        }
        // The README sends a new user here.
        let readme = try String(contentsOfFile: E2E.repoRoot + "/README.md", encoding: .utf8)
        #expect(readme.contains("(docs/try-it.md)"))
    }

    static func installed(_ program: String) -> Bool {
        ["/usr/bin/", "/usr/sbin/", "/bin/"].contains { FileManager.default.isExecutableFile(atPath: $0 + program) }
    }

    static func pythonHas(_ modules: String) -> Bool {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: E2E.python)
        p.arguments = ["-c", "import \(modules)"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }

    @Test(.enabled(if: installed("socat"), "socat is not installed (Debian package socat)"))
    func virtualSerialPort() async throws { try await run("serial") }

    @Test(.enabled(if: installed("gpsfake") && installed("gpsd"), "gpsfake/gpsd are not installed (Debian packages gpsd, gpsd-clients)"))
    func gpsfakeAndGpsd() async throws { try await run("gpsd") }

    @Test(.enabled(if: installed("dbus-daemon") && pythonHas("dbus, dbusmock"),
                   "dbus-daemon or python3-dbusmock is not installed (Debian packages dbus-daemon, python3-dbusmock)"))
    func bleBeaconOnDbusmock() async throws { try await run("ble") }

    /// A regular expression for one line the doc shows.
    static func pattern(_ shown: String) -> NSRegularExpression {
        var p = NSRegularExpression.escapedPattern(for: shown)
        p = p.replacingOccurrences(of: "…", with: ".*")
        return try! NSRegularExpression(pattern: "^" + p + "$")
    }

    func run(_ name: String) async throws {
        let blocks = try Self.blocks().filter { $0.walkthrough == name }
        try #require(!blocks.isEmpty)
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let env = ["LOCUS_TRY_DIR": dir, "LOCUS_RUNTIME_DIR": dir + "/run", "LOCUS_STATE_DIR": dir + "/state"]
        func substitute(_ s: String) -> String {
            s.replacingOccurrences(of: "/tmp/locus-try", with: dir)
                .replacingOccurrences(of: ".build/debug/locus", with: E2E.binary)
                .replacingOccurrences(of: "/usr/bin/python3", with: E2E.python)
        }
        var background: [ChildProcess] = []
        defer {
            // Each background block leads a process group of its own (Foundation's Process starts
            // children so): end it and everything it started, which may ignore SIGTERM.
            for c in background { kill(-c.process.processIdentifier, SIGKILL) }
        }
        var subscriber: ChildProcess?
        var locus: ChildProcess?
        for block in blocks where block.kind == "sh" {
            let script = "set -euo pipefail\n" + substitute(block.body)
            if block.background {
                let child = try ChildProcess("/bin/bash", ["-c", script], directory: E2E.repoRoot, environment: env)
                #expect(getpgid(child.process.processIdentifier) == child.process.processIdentifier, "not a process group of its own")
                background.append(child)
                if block.body.contains("locus run") { locus = child }
                if block.body.contains("locus sub") { subscriber = child }
                if let ready = block.ready.map(substitute) {
                    let ok = await waitUntil(timeout: 30) {
                        if ready.hasPrefix("file:") { return FileManager.default.fileExists(atPath: String(ready.dropFirst(5))) }
                        if ready.hasPrefix("tcp:") { return Self.accepts(port: UInt16(ready.dropFirst(4)) ?? 0) }
                        if ready.hasPrefix("out:") { return child.stdout.contains(String(ready.dropFirst(4))) }
                        return false
                    }
                    #expect(ok, "line \(block.line): not ready (\(ready)): \(child.stdout.suffix(500)) \(child.stderr.suffix(1000))")
                    try #require(ok)
                }
                #expect(child.process.isRunning || child.process.terminationStatus == 0,
                        "line \(block.line) exited \(child.process.terminationStatus): \(child.stderr.suffix(1000))")
            } else {
                let r = try await runToEnd("/bin/bash", ["-c", script], directory: E2E.repoRoot, environment: env, timeout: 30)
                #expect(r.status == 0, "line \(block.line): \(block.body)\n\(r.stdout)\(r.stderr)")
                try #require(r.status == 0)
            }
        }
        let sub = try #require(subscriber, "\(name): no locus sub among the background commands")
        let expected = blocks.filter { $0.kind == "text" && $0.expect }
            .flatMap { $0.body.split(separator: "\n").map(String.init) }.filter { !$0.isEmpty }
        let patterns = expected.map(Self.pattern)
        func missing() -> [String] {
            let lines = sub.stdout.split(separator: "\n").map(String.init)
            return zip(expected, patterns).filter { _, p in
                !lines.contains { p.firstMatch(in: $0, range: NSRange($0.startIndex..., in: $0)) != nil }
            }.map(\.0)
        }
        // The logs loop about every minute: a line missed at the start comes round again.
        let seen = await waitUntil(timeout: 100) { missing().isEmpty }
        #expect(seen, "\(name): locus sub never printed \(missing())\n--- it printed:\n\(sub.stdout.suffix(3000))\n--- locus run:\n\(locus?.stderr.suffix(3000) ?? "")")
        // No false alarm on the way: no gap reported by sub, no warning or error from run.
        #expect(!sub.stderr.contains("gap"), "\(name): locus sub: \(sub.stderr.suffix(2000))")
        let complaints = (locus?.stderr ?? "").split(separator: "\n").filter { $0.contains(" warning ") || $0.contains(" error ") }
        #expect(complaints.isEmpty, "\(name): locus run: \(complaints)")
        if let locus {
            // Its terminal closed: SIGTERM to the terminal's process group; it stops cleanly.
            kill(-locus.process.processIdentifier, SIGTERM)
            let stopped = await waitUntil(timeout: 10) { locus.stderr.contains("locus stopped") }
            #expect(stopped, "\(name): locus run did not stop on SIGTERM: \(locus.stderr.suffix(2000))")
        }
    }

    static func accepts(port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}

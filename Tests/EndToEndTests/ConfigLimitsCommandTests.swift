import Foundation
import Testing

/// `locus check` on hostile configs: refused with exit 2 and a position, without running away.
@Suite struct ConfigLimitsCommandTests {
    @Test func anAliasBombIsAConfigErrorInMilliseconds() async throws {
        let dir = E2E.temporaryDirectory()
        let config = dir + "/bomb.yaml"
        // 9^9 strings once expanded; before the limit, `locus check` grew by ~130 MB/s.
        var text = "sources:\n  - type: exec\n    id: a\n    command: &a [lol,lol,lol,lol,lol,lol,lol,lol,lol]\n"
        text += "    produces: &b [" + Array(repeating: "*a", count: 9).joined(separator: ",") + "]\n"
        text += "    topics: &c [" + Array(repeating: "*b", count: 9).joined(separator: ",") + "]\n"
        text += "  - type: exec\n    id: b\n    command: &d [" + Array(repeating: "*c", count: 9).joined(separator: ",") + "]\n"
        text += "    produces: &e [" + Array(repeating: "*d", count: 9).joined(separator: ",") + "]\n"
        text += "    topics: [" + Array(repeating: "*e", count: 9).joined(separator: ",") + "]\n"
        try text.write(toFile: config, atomically: true, encoding: .utf8)
        let started = Date()
        let r = try await runToEnd(E2E.binary, ["check", config], directory: dir, timeout: 30)
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("bomb.yaml:"), "\(r.stderr)")
        #expect(r.stderr.contains("alias bomb"), "\(r.stderr)")
        #expect(Date().timeIntervalSince(started) < 10, "bounded by the node limit, not by memory")
    }
}

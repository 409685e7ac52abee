import Foundation
import Testing

/// `locus check` on hostile configs: refused with exit 2 and a position, without running away.
@Suite struct ConfigLimitsCommandTests {
    @Test func anAliasBombIsAConfigErrorInMilliseconds() async throws {
        let dir = E2E.temporaryDirectory()
        let config = dir + "/bomb.yaml"
        // 9^9 strings once expanded, in ~500 bytes; before the limit, `locus check` grew by
        // ~50 MB/s until the kernel killed it.
        func aliases(_ name: String) -> String { "[" + Array(repeating: "*" + name, count: 9).joined(separator: ",") + "]" }
        let text = """
            sources:
              - type: exec
                id: a
                command: &a [lol,lol,lol,lol,lol,lol,lol,lol,lol]
                produces: &b \(aliases("a"))
                topics: &c \(aliases("b"))
              - type: exec
                id: b
                command: &d \(aliases("c"))
                produces: &e \(aliases("d"))
                topics: &f \(aliases("e"))
              - type: exec
                id: c
                command: &g \(aliases("f"))
                topics: &h \(aliases("g"))
                produces: \(aliases("h"))

            """
        try text.write(toFile: config, atomically: true, encoding: .utf8)
        let started = Date()
        let r = try await runToEnd(E2E.binary, ["check", config], directory: dir, timeout: 20)
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("bomb.yaml:"), "\(r.stderr)")
        #expect(r.stderr.contains("alias bomb"), "\(r.stderr)")
        #expect(Date().timeIntervalSince(started) < 10, "bounded by the node limit, not by memory")
    }
}

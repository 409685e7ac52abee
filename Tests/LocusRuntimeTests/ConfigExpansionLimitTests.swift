import Foundation
import LocusCore
import Logging
import Testing
import Yams
@testable import LocusRuntime

/// Configs whose aliases expand past `ConfigExpansionLimits` are refused at the value that uses
/// them, before anything walks the expanded tree.
@Suite("Config expansion limits")
struct ConfigExpansionLimitTests {
    /// A "billion laughs" under keys the loader accepts: nine levels of nine aliases each, 9^9
    /// strings once expanded, in about 500 bytes.
    static let aliasBomb = """
        sources:
          - type: exec
            id: a
            command: &a [lol,lol,lol,lol,lol,lol,lol,lol,lol]
            produces: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
            topics: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
          - type: exec
            id: b
            command: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
            produces: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
            topics: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
          - type: exec
            id: c
            command: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
            topics: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
            produces: [*h,*h,*h,*h,*h,*h,*h,*h,*h]

        """

    func errors(_ yaml: String) -> [ConfigError] {
        let loader = ConfigLoader(factories: ConfigTestPlugins.all, environment: ["LOCUS_RUNTIME_DIR": "/tmp/locus-t"],
                                  logger: Logger(label: "test"))
        do {
            _ = try loader.load(text: yaml, file: "bomb.yaml", directory: "/cfg")
            return []
        } catch let e as ConfigErrors {
            return e.errors
        } catch {
            return [ConfigError(file: "?", line: 0, column: 0, message: "unexpected \(error)")]
        }
    }

    @Test func anAliasBombIsRefusedAtTheValueThatExpandsIt() {
        let start = ContinuousClock.now
        let found = errors(Self.aliasBomb)
        let took = start.duration(to: .now)
        #expect(found.count == 1, "\(found)")
        let e = found.first
        // The first value that passes a limit: `command: &d [*c,…]` of the second entry, where
        // 9 uses of *c, each 81 strings, pass 10,000 alias expansions... or whichever limit is
        // met first; what matters is the place is inside the file, on a line that uses aliases.
        #expect(e?.message.contains("alias bomb") == true, "\(found)")
        #expect((e?.line ?? 0) >= 8 && (e?.line ?? 0) <= 17, "\(found)")
        #expect((e?.column ?? 0) > 1, "\(found)")
        // Far below what expanding 387 million strings would take.
        #expect(took < .seconds(5), "took \(took)")
    }

    @Test func eachLimitIsEnforcedOnItsOwn() throws {
        // Nodes: 2 levels of 20 aliases to a 30-item list = 12,000 strings, no more than 420 alias uses.
        let wide = """
            a: &a [\(Array(repeating: "x", count: 30).joined(separator: ","))]
            b: &b [\(Array(repeating: "*a", count: 20).joined(separator: ","))]
            c: [\(Array(repeating: "*b", count: 20).joined(separator: ","))]
            """
        let root = try #require(try Parser(yaml: wide).singleRoot())
        var limits = ConfigExpansionLimits()
        #expect(limits.check(root) == nil)
        limits.maxNodes = 10_000
        let nodes = try #require(limits.check(root))
        #expect(nodes.message.contains("10000 YAML nodes"), "\(nodes)")
        #expect(nodes.position == SourcePosition(line: 3, column: 4), "\(nodes)")

        limits = ConfigExpansionLimits()
        limits.maxAliasExpansions = 100
        let aliases = try #require(limits.check(root))
        #expect(aliases.message.contains("expanded more than 100 times"), "\(aliases)")
        #expect(aliases.position.line == 3, "\(aliases)")

        // Depth: each anchor nests the previous one a level deeper than it is written.
        var chain = "l0: &l0 [x]\n"
        for i in 1...70 { chain += "l\(i): &l\(i) [*l\(i - 1)]\n" }
        let deep = try #require(try Parser(yaml: chain).singleRoot())
        let tooDeep = try #require(ConfigExpansionLimits.standard.check(deep))
        #expect(tooDeep.message.contains("nest more than 64 levels"), "\(tooDeep)")
        // l62 is the root (1), its list (2) and 62 more lists down to l0's `x` (65 > 64).
        #expect(tooDeep.position.line == 63, "\(tooDeep)")
    }

    @Test func ordinaryConfigsWithAliasesStillLoad() {
        let yaml = """
            hub: { external_topics: [obs.fix.] }
            services:
              - type: example-speed-alert
                id: a
                limit: &limit 2.5
              - type: example-speed-alert
                id: b
                limit: *limit

            """
        #expect(errors(yaml).isEmpty, "\(errors(yaml))")
    }
}

import Foundation
import LocusCore
import Testing
import Yams
@testable import LocusRuntime

@Suite("Config environment substitution")
struct ConfigEnvironmentTests {
    let env = ["HOME": "/home/ana", "EMPTY": "", "SPEED": "10", "N_1": "x"]

    func sub(_ s: String) -> Result<String, EnvironmentSubstitution.Failure> {
        EnvironmentSubstitution.substitute(s, environment: env)
    }

    @Test func replacesVariables() {
        #expect(sub("${HOME}/data") == .success("/home/ana/data"))
        #expect(sub("${SPEED}${SPEED}") == .success("1010"))
        #expect(sub("a ${N_1} b") == .success("a x b"))
        #expect(sub("no variables") == .success("no variables"))
    }

    @Test func defaultsApplyWhenUnsetOrEmpty() {
        #expect(sub("${MISSING:-fallback}") == .success("fallback"))
        #expect(sub("${EMPTY:-fallback}") == .success("fallback"))
        #expect(sub("${HOME:-fallback}") == .success("/home/ana"))
        #expect(sub("${MISSING:-}") == .success(""))
        #expect(sub("${MISSING:-a:-b}") == .success("a:-b"))
        // Set but empty, no default: the empty value is used.
        #expect(sub("[${EMPTY}]") == .success("[]"))
    }

    @Test func dollarEscapes() {
        #expect(sub("$$") == .success("$"))
        #expect(sub("cost: $$5") == .success("cost: $5"))
        #expect(sub("$${HOME}") == .success("${HOME}"))
        #expect(sub("$$$${HOME}") == .success("$${HOME}"))
        // A lone $ not followed by { or $ stays as it is.
        #expect(sub("$HOME and 5$") == .success("$HOME and 5$"))
    }

    @Test func failures() {
        #expect(sub("${MISSING}") == .failure(.unset("MISSING")))
        #expect(sub("x ${HOME") == .failure(.unterminated("x ${HOME")))
        #expect(sub("${1ABC}") == .failure(.badName("1ABC")))
        #expect(sub("${}") == .failure(.badName("")))
        #expect(sub("${A-B}") == .failure(.badName("A-B")))
        #expect(EnvironmentSubstitution.Failure.unset("GPS").message.contains("${GPS:-value}"))
    }

    @Test func substitutionKeepsMarksTagsAndStyle() throws {
        let node = try #require(try Yams.compose(yaml: "a: ${SPEED}\nb: \"${SPEED}\"\nc: [ x, '${HOME}' ]\n${HOME}: 1\n"))
        var failures: [(SourcePosition, String, EnvironmentSubstitution.Failure)] = []
        let out = ConfigYAML.substitute(node, environment: env, path: "", failures: &failures)
        #expect(failures.isEmpty)
        let a = try #require(out["a"])
        #expect(a.int == 10)  // plain scalar re-resolved: a number
        #expect(a.position == SourcePosition(line: 1, column: 4))
        let b = try #require(out["b"])
        #expect(b.string == "10")
        #expect(b.int == nil)  // quoted: stays a string
        #expect(b.position == SourcePosition(line: 2, column: 4))
        #expect(out["c"]?[1]?.string == "/home/ana")
        #expect(out["c"]?[1]?.position == SourcePosition(line: 3, column: 9))
        // Keys are not substituted.
        #expect(out["${HOME}"]?.int == 1)
    }

    @Test func substitutionFailuresCarryPositionAndPath() throws {
        let node = try #require(try Yams.compose(yaml: "outer:\n  list: [ ok, \"${NOPE}\" ]\n"))
        var failures: [(SourcePosition, String, EnvironmentSubstitution.Failure)] = []
        _ = ConfigYAML.substitute(node, environment: env, path: "", failures: &failures)
        #expect(failures.count == 1)
        #expect(failures.first?.0 == SourcePosition(line: 2, column: 15))
        #expect(failures.first?.1 == "outer.list[1]")
        #expect(failures.first?.2 == .unset("NOPE"))
    }
}

@Suite("Config endpoints")
struct ConfigEndpointTests {
    @Test(arguments: [
        "inproc://hub", "ipc:///run/locus/publish.sock", "ipc://relative.sock", "ipc://@abstract",
        "tcp://127.0.0.1:5556", "tcp://*:1", "tcp://localhost:65535", "tcp://gps-box.local:5556",
        "tcp://eth0:5556", "tcp://[::1]:5556",
    ])
    func accepted(_ endpoint: String) {
        #expect(ConfigEndpoint.problem(endpoint) == nil)
    }

    @Test(arguments: [
        ("udp://127.0.0.1:5556", "'udp://127.0.0.1:5556': unsupported transport 'udp'"),
        ("127.0.0.1:5556", "expected inproc://name, ipc:///path or tcp://host:port"),
        ("inproc://", "needs a name"),
        ("ipc://", "needs a path"),
        ("tcp://127.0.0.1", "needs host:port"),
        ("tcp://127.0.0.1:", "needs a port"),
        ("tcp://:5556", "needs a host"),
        ("tcp://127.0.0.1:0", "from 1 to 65535"),
        ("tcp://127.0.0.1:65536", "from 1 to 65535"),
        ("tcp://127.0.0.1:http", "not 'http'"),
        ("tcp://127.0.0.1:*", "port '*'"),
        ("tcp://300.1.1.1:5556", "is not a host name, an IP address or *"),
        ("tcp://bad host:5556", "is not a host name, an IP address or *"),
        ("tcp://[::1:5556", "unclosed '['"),
        ("ipc:///" + String(repeating: "d", count: 120), "allow at most 107 (use a shorter directory, e.g. set LOCUS_RUNTIME_DIR)"),
    ])
    func rejected(_ endpoint: String, _ fragment: String) throws {
        let problem = try #require(ConfigEndpoint.problem(endpoint))
        #expect(problem.contains(fragment), "\(problem)")
    }

    @Test func connectableReplacesWildcards() {
        #expect(ConfigEndpoint.connectable("tcp://*:5556") == "tcp://127.0.0.1:5556")
        #expect(ConfigEndpoint.connectable("tcp://0.0.0.0:5556") == "tcp://127.0.0.1:5556")
        #expect(ConfigEndpoint.connectable("tcp://[::]:5556") == "tcp://[::1]:5556")
        #expect(ConfigEndpoint.connectable("ipc:///x.sock") == "ipc:///x.sock")
    }

    @Test func connectEndpointsPreferIPCOrTCP() {
        let hub = HubSettings(ingest: ["inproc://in", "tcp://*:5555"], publish: ["ipc:///p.sock", "tcp://*:5556"],
                              control: "tcp://0.0.0.0:5557")
        #expect(hub.connectEndpoints == HubEndpoints(ingest: "tcp://127.0.0.1:5555", publish: "ipc:///p.sock",
                                                     control: "tcp://127.0.0.1:5557"))
        let inprocOnly = HubSettings(ingest: ["inproc://in"], publish: ["inproc://out"], control: "inproc://ctl")
        #expect(inprocOnly.connectEndpoints.ingest == "inproc://in")
    }

    @Test func runtimeDirectoryPrecedence() {
        #expect(RuntimePaths.runtimeDirectory(environment: ["LOCUS_RUNTIME_DIR": "/srv/locus/", "XDG_RUNTIME_DIR": "/run/user/1000"]) == "/srv/locus")
        #expect(RuntimePaths.runtimeDirectory(environment: ["LOCUS_RUNTIME_DIR": "", "XDG_RUNTIME_DIR": "/run/user/1000"]) == "/run/user/1000/locus")
        #expect(RuntimePaths.runtimeDirectory(environment: [:]) == "/tmp/locus-\(getuid())")
        let e = RuntimePaths.defaultEndpoints(environment: ["XDG_RUNTIME_DIR": "/run/user/7"])
        #expect(e == HubEndpoints(ingest: "ipc:///run/user/7/locus/ingest.sock", publish: "ipc:///run/user/7/locus/publish.sock",
                                  control: "ipc:///run/user/7/locus/control.sock", catchup: "ipc:///run/user/7/locus/catchup.sock"))
    }
}

@Suite("Config suggestions")
struct ConfigSuggestionTests {
    @Test func distance() {
        #expect(ConfigSuggestions.distance("speed", "speed") == 0)
        #expect(ConfigSuggestions.distance("sped", "speed") == 1)
        #expect(ConfigSuggestions.distance("soruces", "sources") == 1)  // swap
        #expect(ConfigSuggestions.distance("", "abc") == 3)
        #expect(ConfigSuggestions.distance("kitten", "sitting") == 3)
    }

    @Test func suggestions() {
        let keys = ["file", "speed", "loop", "topics", "tick_interval", "start_delay"]
        #expect(ConfigSuggestions.suggestion(for: "sped", among: keys) == "speed")
        #expect(ConfigSuggestions.suggestion(for: "lop", among: keys) == "loop")
        #expect(ConfigSuggestions.suggestion(for: "Topic", among: keys) == "topics")
        #expect(ConfigSuggestions.suggestion(for: "tick-intervl", among: keys) == "tick_interval")
        #expect(ConfigSuggestions.suggestion(for: "colour", among: keys) == nil)
        #expect(ConfigSuggestions.suggestion(for: "speed", among: keys) == nil)
        // Short words need a closer match: 'id' is not 'ip' → no wild guesses.
        #expect(ConfigSuggestions.suggestion(for: "xy", among: ["id", "hub"]) == nil)
        #expect(ConfigSuggestions.didYouMean("replai", among: ["replay", "exec"]) == " (did you mean 'replay'?)")
        #expect(ConfigSuggestions.didYouMean("zzz", among: ["replay", "exec"]) == "")
        // Issue 30, item 4: a synonym, and the start of a longer key when it is the only one.
        #expect(ConfigSuggestions.suggestion(for: "lng", among: ["lat", "lon"]) == "lon")
        #expect(ConfigSuggestions.suggestion(for: "latitude", among: ["lat", "lon"]) == "lat")
        #expect(ConfigSuggestions.suggestion(for: "secret_key", among: ["secret_key_file", "authorized_keys"]) == "secret_key_file")
        #expect(ConfigSuggestions.suggestion(for: "journal_max", among: ["journal_max_bytes", "journal_max_age"]) == nil)
        #expect(ConfigSuggestions.suggestion(for: "sec", among: ["secret_key_file"]) == nil)
    }
}

@Suite("Config positions")
struct ConfigPositionTests {
    @Test func marksAreOneBasedLineAndColumn() throws {
        let yaml = "hub:\n  publish: [ \"a\", b ]\nsinks:\n  - type: console\n    id: c\n"
        let root = try #require(try Yams.compose(yaml: yaml))
        #expect(root.position == SourcePosition(line: 1, column: 1))
        #expect(root["hub"]?.position == SourcePosition(line: 2, column: 3))
        #expect(root["hub"]?["publish"]?.position == SourcePosition(line: 2, column: 12))
        #expect(root["hub"]?["publish"]?[0]?.position == SourcePosition(line: 2, column: 14))
        #expect(root["hub"]?["publish"]?[1]?.position == SourcePosition(line: 2, column: 19))
        // A sequence entry's mapping starts at its first key, after "- ".
        #expect(root["sinks"]?[0]?.position == SourcePosition(line: 4, column: 5))
        #expect(root["sinks"]?[0]?["id"]?.position == SourcePosition(line: 5, column: 9))
    }

    @Test func columnsCountCharactersNotBytes() throws {
        let root = try #require(try Yams.compose(yaml: "name: [ \"čšž\", x ]\n"))
        #expect(root["name"]?[1]?.position == SourcePosition(line: 1, column: 16))
    }

    @Test func missingMarkUsesFallback() {
        #expect(SourcePosition(nil) == .file)
        #expect(SourcePosition(nil, fallback: SourcePosition(line: 3, column: 4)) == SourcePosition(line: 3, column: 4))
    }

    @Test func syntaxErrorsArePositioned() throws {
        guard case .failure(let e) = ConfigYAML.parse("a: [1, 2\nb: 3\n") else {
            Issue.record("expected a syntax error")
            return
        }
        #expect(e.position == SourcePosition(line: 2, column: 2))
        #expect(e.message.hasPrefix("YAML syntax error: did not find expected ',' or ']'"))
        #expect(e.message.contains("at line 1, column 4"))
    }

    /// The config is read by text, so the parser resolves no tags (no regular expression runs):
    /// the keys `1`, `yes` and `~` are found and stay strings to Yams, and values still read as
    /// numbers, booleans and null. Values are read before anything resolves their tags, as in the
    /// loader: `Bool.construct` refuses a scalar once it is resolved as a string.
    @Test func scalarsAreReadByTextWithoutTagResolution() throws {
        let root = try #require(try ConfigYAML.parse("1: 1\nyes: yes\n~: ~\n2.5: 2.5\n").get())
        guard case .scalar(let one)? = root["1"], case .scalar(let yes)? = root["yes"],
              case .scalar(let real)? = root["2.5"], let null = root["~"] else {
            Issue.record("a key was not found")
            return
        }
        #expect(Int.construct(from: one) == 1)
        #expect(Bool.construct(from: yes) == true)
        #expect(Double.construct(from: real) == 2.5)
        #expect(null.isNull)
        let keys: [Node] = root.mapping.map { Array($0.keys) } ?? []
        #expect(keys.count == 4)
        for key in keys {
            #expect(key.tag.rawValue == Tag.Name.str.rawValue, "key \(key.string ?? "") resolved to \(key.tag.rawValue)")
        }
    }

    @Test func emptyDocumentsParseToNothing() throws {
        #expect(try ConfigYAML.parse("").get() == nil)
        #expect(try ConfigYAML.parse("# only a comment\n").get() == nil)
    }

    @Test func characterOffsets() {
        #expect(ConfigYAML.position(ofCharacterOffset: 0, in: "ab\ncd") == SourcePosition(line: 1, column: 1))
        #expect(ConfigYAML.position(ofCharacterOffset: 4, in: "ab\ncd") == SourcePosition(line: 2, column: 2))
    }

    @Test func codingPathsFindNodes() throws {
        let root = try #require(try Yams.compose(yaml: "env:\n  A: [1, 2]\nlist: [x, y]\n"))
        struct K: CodingKey {
            var stringValue: String
            var intValue: Int?
            init(stringValue: String) { self.stringValue = stringValue }
            init(intValue: Int) { stringValue = "Index \(intValue)"; self.intValue = intValue }
        }
        let path: [any CodingKey] = [K(stringValue: "env"), K(stringValue: "A"), K(intValue: 1)]
        #expect(ConfigYAML.node(at: path, in: root).position == SourcePosition(line: 2, column: 10))
        #expect(ConfigYAML.pathDescription(path) == "env.A[1]")
        // As far as the path exists.
        #expect(ConfigYAML.node(at: [K(stringValue: "nope")], in: root) == root)
    }

    @Test func errorDescriptions() {
        let e = ConfigError(file: "config.yaml", line: 12, column: 5, message: "bad")
        #expect(e.description == "config.yaml:12:5: error: bad")
        let whole = ConfigError(file: "/etc/locus.yaml", line: 0, column: 0, message: "cannot read")
        #expect(whole.description == "/etc/locus.yaml: error: cannot read")
        let all = ConfigErrors.sorted([
            ConfigError(file: "c", line: 9, column: 1, message: "late"),
            ConfigError(file: "c", line: 2, column: 7, message: "b"),
            ConfigError(file: "c", line: 2, column: 3, message: "a"),
            ConfigError(file: "c", line: 2, column: 3, message: "a"),
        ])
        #expect(all.errors.map(\.message) == ["a", "b", "late"])
        #expect(all.description == "c:2:3: error: a\nc:2:7: error: b\nc:9:1: error: late")
    }
}

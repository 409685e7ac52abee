import Foundation
import LocusBus
import LocusCore
import LocusPlugins
import Logging
import Testing
@testable import LocusRuntime

/// Issue 29 item 10: `listen: "127.wild.test:PORT"` passed `locus check` for the web gateway,
/// because a host *name* starting with "127." was taken as loopback; where that name resolves to
/// 0.0.0.0, the map and every event went to the network without a token. One rule now decides
/// loopback for every kind of address: literal loopback addresses, `localhost` and `lo` only.
@Suite struct AddressRuleTests {
    static let loopback = ["127.0.0.1", "127.1.2.3", "127.255.255.255", "::1", "[::1]", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1", "localhost", "lo"]
    static let notLoopback = ["127.wild.test", "127.0.0.1.nip.io", "127", "127.1", "127.0.0.256", "0.0.0.0", "*", "::", "[::]",
                              "10.0.0.1", "localhost.example", "::2", "::ffff:10.0.0.1", "example.org"]

    @Test func oneRuleForEveryKindOfAddress() {
        for host in Self.loopback {
            #expect(HostAddress.isLoopback(Substring(host)), "\(host)")
        }
        for host in Self.notLoopback {
            #expect(!HostAddress.isLoopback(Substring(host)), "\(host)")
        }
        // HTTP servers (hub.metrics, the web sink, locus view) and ZeroMQ endpoints agree.
        for host in Self.loopback + Self.notLoopback where host != "*" && host != "lo" {
            let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
            let http = try? HTTPAddress.parse("\(bracketed):8080", example: "127.0.0.1:8080").get()
            let zmq = Endpoint.isLoopback("tcp://\(bracketed):5556")
            if let http { #expect(http.isLoopback == zmq, "\(host): http \(http.isLoopback), zmq \(zmq)") }
            #expect(ConfigEndpoint.isLoopback("tcp://\(bracketed):5556") == zmq, "\(host)")
        }
    }

    /// Issue 32 item 3: one parser of host:port. The hub's endpoints, `hub:` in the config and
    /// the HTTP servers' `listen` take and refuse the same addresses (ZeroMQ's wildcards aside).
    /// Before, `127.0.0.1:+80` was a web address but no endpoint, and the config read
    /// `[::1:5556` by a rule of its own.
    @Test func everyKindOfAddressReadsHostAndPortAlike() {
        let cases = ["127.0.0.1:80", "localhost:65535", "gps-box.local:7000", "eth0:1", "[::1]:8080", "[::ffff:10.0.0.1]:9",
                     "127.0.0.1:+80", "127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:", ":80", "127.0.0.1", "::1:80",
                     "[::1:80", "[127.0.0.1]:80", "host-:80", "-host:80", "a..b:80", "300.1.1.1:80", "bad host:80",
                     "127.0.0.1:80 ", "[::1]80", "x:0080", "x:123456"]
        for text in cases {
            let http = (try? HTTPAddress.parse(text, example: "127.0.0.1:8080").get()) != nil
            let zmq = (try? Endpoint.validate("tcp://" + text)) != nil
            let config = ConfigEndpoint.problem("tcp://" + text) == nil
            #expect(http == zmq && zmq == config, "\(text): http \(http), zmq \(zmq), config \(config)")
        }
    }

    static func loadErrors(_ yaml: String) -> [String] {
        let loader = ConfigLoader(factories: BuiltinPlugins.all, environment: ["LOCUS_RUNTIME_DIR": "/tmp/locus-t"], logger: Logger(label: "t"))
        do {
            _ = try loader.load(text: yaml, file: "t.yaml", directory: "/tmp", mode: .full)
            return []
        } catch let e as ConfigErrors {
            return e.errors.map(\.message)
        } catch {
            return ["\(error)"]
        }
    }

    /// What `locus check` (and so `locus run`) says of each kind of endpoint on such a name.
    @Test func aNameThatLooksLikeLoopbackIsRefusedWithoutATokenOrKey() {
        let web = Self.loadErrors("""
            sinks:
              - {type: web, id: map, listen: "127.wild.test:8080"}
            """)
        #expect(web.contains { $0.contains("127.wild.test:8080 is not loopback") && $0.contains("token_file") }, "\(web)")
        #expect(Self.loadErrors("""
            sinks:
              - {type: web, id: map, listen: "127.0.0.1:8080"}
            """).isEmpty)
        let publish = Self.loadErrors("""
            hub:
              publish: ["tcp://127.wild.test:5556"]
            """)
        #expect(publish.contains { $0.contains("reachable beyond this machine") }, "\(publish)")
        let control = Self.loadErrors("""
            hub:
              control: "tcp://127.wild.test:5557"
            """)
        #expect(control.contains { $0.contains("the control socket on tcp://127.wild.test:5557") }, "\(control)")
        #expect(Self.loadErrors("""
            hub:
              publish: ["tcp://127.0.0.1:5556"]
              control: "tcp://[::1]:5557"
            """).isEmpty)
    }
}

import Testing
@testable import LocusBus

@Suite("Endpoint validation")
struct EndpointTests {
    static let valid: [(String, Endpoint.Parsed)] = [
        ("inproc://locus-ingest", .inproc(name: "locus-ingest")),
        ("ipc:///run/locus/bus.sock", .ipc(path: "/run/locus/bus.sock")),
        ("ipc://relative/bus.sock", .ipc(path: "relative/bus.sock")),
        ("ipc://@abstract", .ipc(path: "@abstract")),
        ("tcp://127.0.0.1:5555", .tcp(host: "127.0.0.1", port: 5555)),
        ("tcp://*:1", .tcp(host: "*", port: 1)),
        ("tcp://localhost:65535", .tcp(host: "localhost", port: 65535)),
        ("tcp://gps-box.local:7000", .tcp(host: "gps-box.local", port: 7000)),
        ("tcp://eth0:7000", .tcp(host: "eth0", port: 7000)),
        ("tcp://[::1]:7000", .tcp(host: "[::1]", port: 7000)),
        ("tcp://127.0.0.1:*", .tcp(host: "127.0.0.1", port: nil)),
    ]

    @Test(arguments: valid)
    func accepts(_ text: String, _ expected: Endpoint.Parsed) throws {
        #expect(try Endpoint.validate(text) == expected)
    }

    static let invalid: [(String, String)] = [
        ("", "expected inproc://name, ipc:///path or tcp://host:port"),
        ("/run/locus/bus.sock", "expected inproc://name, ipc:///path or tcp://host:port"),
        ("inproc://", "an inproc endpoint needs a name"),
        ("ipc://", "an ipc endpoint needs a path"),
        ("ipc:///tmp/", "the ipc path names a directory, not a socket file"),
        ("ipc:///" + String(repeating: "x", count: 120),
         "the ipc path is 121 bytes; Unix sockets allow at most 107 (use a shorter directory, e.g. set LOCUS_RUNTIME_DIR)"),
        ("tcp://127.0.0.1", "a tcp endpoint needs host:port; expected tcp://host:port, host '*', an IP address ([IPv6] in brackets) or a name, port 1 to 65535"),
        ("tcp://127.0.0.1:", "a tcp endpoint needs a port after the ':'; expected tcp://host:port, host '*', an IP address ([IPv6] in brackets) or a name, port 1 to 65535"),
        ("tcp://127.0.0.1:+80", "the port must be a number from 1 to 65535, not '+80'"),
        ("tcp://[::1:5555", "unclosed '[' in the host; expected tcp://host:port, host '*', an IP address ([IPv6] in brackets) or a name, port 1 to 65535"),
        ("tcp://::1:5555", "an IPv6 address goes in brackets, as in tcp://[::1]:5556"),
        ("tcp://[127.0.0.1]:5555", "'[127.0.0.1]' is not a host name, an IP address or *"),
        ("tcp://host-:5555", "'host-' is not a host name, an IP address or *"),
        ("tcp://127.0.0.1:0", "the port must be a number from 1 to 65535, not '0'"),
        ("tcp://127.0.0.1:65536", "the port must be a number from 1 to 65535, not '65536'"),
        ("tcp://127.0.0.1:http", "the port must be a number from 1 to 65535, not 'http'"),
        ("tcp://:5555", "a tcp endpoint needs a host (a name, an IP address or *)"),
        ("tcp://300.1.1.1:5555", "'300.1.1.1' is not a host name, an IP address or *"),
        ("tcp://bad host:5555", "'bad host' is not a host name, an IP address or *"),
        ("tcp://-x:5555", "'-x' is not a host name, an IP address or *"),
        ("udp://127.0.0.1:5555", "unsupported transport 'udp' (use inproc, ipc or tcp)"),
    ]

    @Test(arguments: invalid)
    func refusesWithAReason(_ text: String, _ reason: String) {
        let error = #expect(throws: EndpointError.self) { try Endpoint.validate(text) }
        #expect(error?.reason == reason)
        #expect(error?.description == "invalid endpoint '\(text)': \(reason)")
    }

    @Test func ipcFilePathOnlyForFiles() throws {
        #expect(try Endpoint.validate("ipc:///a/b.sock").ipcFilePath == "/a/b.sock")
        #expect(try Endpoint.validate("ipc://@abstract").ipcFilePath == nil)
        #expect(try Endpoint.validate("tcp://*:1").ipcFilePath == nil)
    }

    @Test func hubConfigurationChecksItsEndpoints() {
        var config = HubConfiguration(ingestEndpoints: ["ipc:///tmp/x/in.sock"], publishEndpoints: ["tcp://*:0"])
        #expect(throws: EndpointError.self) { try config.validate() }
        config.publishEndpoints = ["ipc:///tmp/x/in.sock"]
        #expect(throws: LocusBusError.self) { try config.validate() }
        config.publishEndpoints = ["ipc:///tmp/x/out.sock"]
        #expect(throws: Never.self) { try config.validate() }
        #expect(config.allIngestEndpoints == [HubConfiguration.inprocIngest, "ipc:///tmp/x/in.sock"])
        // Past max_message_bytes the hub still reads and counts (too_large) up to 4× or 64 MiB.
        #expect(config.transportMessageLimit == 64 << 20)
        config.limits.maxMessageBytes = 32 << 20
        #expect(config.transportMessageLimit == 4 * (32 << 20))
    }
}

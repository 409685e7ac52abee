import Foundation
import Glibc
import LocusCore
@testable import LocusWebPlugin
import LocusTestKit
import Logging
import Testing

/// Issue 49, item 7: the gateway's HTTP end in this process, on loopback, against clients
/// (plain sockets) that open an event stream and never read.
@Suite(.serialized) struct IdleStreamCostTests {
    /// A loopback TCP client bound to `source`: connects to `port`, sends `request`.
    static func connect(from source: String, to port: Int, _ request: String) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, source, &a.sin_addr)
        var b = sockaddr_in()
        b.sin_family = sa_family_t(AF_INET)
        b.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &b.sin_addr)
        _ = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        let r = withUnsafePointer(to: &b) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard r == 0 else { close(fd); return -1 }
        _ = request.utf8CString.withUnsafeBufferPointer { send(fd, $0.baseAddress, $0.count - 1, 0) }
        return fd
    }

    /// The status line's code of an answer to `path` from `source` (0: none within 5 s).
    static func status(from source: String, port: Int, _ path: String) -> Int {
        let fd = connect(from: source, to: port, "GET \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        var tv = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var buf = [UInt8](repeating: 0, count: 64)
        let n = recv(fd, &buf, 64, 0)
        guard n >= 12 else { return 0 }
        return Int(String(decoding: buf[9..<12], as: UTF8.self)) ?? 0
    }

    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, "127.0.0.1", &a.sin_addr)
        _ = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return Int(UInt16(bigEndian: a.sin_port))
    }

    /// A gateway serving `feed` on a free loopback port, running until the returned task is cancelled.
    static func serve(_ feed: EventFeed, _ configure: (inout WebConfiguration) -> Void = { _ in }) async throws -> (Int, Task<Void, any Error>) {
        let port = freePort()
        var c = WebConfiguration()
        configure(&c)
        let address = try HTTPAddress.parse("127.0.0.1:\(port)", example: "8080").get()
        let server = WebServer(configuration: c, address: address, token: nil, feed: feed, journal: nil,
                               logger: Logger(label: "test"))
        let task = Task { try await server.run() }
        for _ in 0..<100 where status(from: "127.0.0.1", port: port, "/state") != 200 {
            try await Task.sleep(for: .milliseconds(50))
        }
        return (port, task)
    }

    /// One address holding as many event streams as it may connections leaves none for its
    /// other clients: on loopback, every local user's browser and script. Streams from one
    /// address stop at max_streams_per_address (counted), so GET /state from the same address
    /// (and from another) is still answered.
    @Test func streamsFromOneAddressLeaveRoomForItsOtherRequests() async throws {
        let feed = EventFeed(historyLimit: 10, queueLimit: 1000, maxClients: 2000)
        let (port, server) = try await Self.serve(feed)
        defer { server.cancel() }
        let limit = WebConfiguration().maxConnectionsPerAddress
        var fds: [Int32] = []
        defer { for fd in fds { close(fd) } }
        for _ in 0..<limit {
            fds.append(Self.connect(from: "127.0.0.1", to: port, "GET /events HTTP/1.1\r\nHost: x\r\n\r\n"))
        }
        try await Task.sleep(for: .milliseconds(500))
        #expect(Self.status(from: "127.0.0.2", port: port, "/state") == 200)
        #expect(Self.status(from: "127.0.0.1", port: port, "/state") == 200)
        #expect(feed.clientCount == WebConfiguration().maxStreamsPerAddress)
        #expect(feed.counters.counters.streamsRefused == limit - WebConfiguration().maxStreamsPerAddress)
    }
}

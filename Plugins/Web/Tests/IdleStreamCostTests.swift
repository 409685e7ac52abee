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

    /// Bytes malloc has handed out and not had back (glibc's `malloc_info`: what the arenas
    /// took from the system less what is free in them, plus mmapped blocks). Counts a block
    /// at its allocated size whether or not its pages were touched.
    static func mallocInUse() -> Int {
        typealias MallocInfo = @convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32
        guard let symbol = dlsym(nil, "malloc_info") else { return -1 }
        let mallocInfo = unsafeBitCast(symbol, to: MallocInfo.self)
        var text: UnsafeMutablePointer<CChar>?
        var size = 0
        guard let file = open_memstream(&text, &size) else { return -1 }
        _ = mallocInfo(0, file)
        fclose(file)
        defer { free(text) }
        let xml = text.map { String(cString: $0) } ?? ""
        // The totals over every arena come after the last </heap>.
        guard let tail = xml.range(of: "</heap>", options: .backwards).map({ xml[$0.upperBound...] }) else { return -1 }
        func sizeOf(_ tag: String) -> Int {
            guard let r = tail.range(of: tag) else { return 0 }
            let rest = tail[r.upperBound...]
            guard let s = rest.range(of: "size=\"") else { return 0 }
            return Int(rest[s.upperBound...].prefix { $0.isNumber }) ?? 0
        }
        return sizeOf(#"<system type="current""#) - sizeOf(#"<total type="fast""#) - sizeOf(#"<total type="rest""#) + sizeOf(#"<total type="mmap""#)
    }

    /// 150 clients open `/events?history=1` from 127.0.0.2-6 and never read while 1,500 events
    /// of about 300 bytes come one at a time: what the gateway holds for them, beyond the
    /// events themselves (about 0.5 MB, shared), stays under 48 KiB a client. Each client's
    /// bytes wait in its kernel buffers, then in NIO's write buffer (64 KiB), then in its
    /// outbox; before, each event written to each client was a copy in a 32 KiB buffer (the
    /// allocator's rounding of the batch buffer's 17 KiB), and NIO held up to 64 KiB of them
    /// per client: megabytes a client.
    @Test(.disabled("unfinished: malloc_info counts the arenas' free top chunk, and on loopback the kernel took all 630 KB a client, so this measures neither version; bench/sse-flood-soak.sh measures it"))
    func anIdleEventStreamCostsTensOfKilobytes() async throws {
        let clients = 150, events = 1500
        let feed = EventFeed(historyLimit: 200, queueLimit: 100_000, bufferLimit: 64 << 20, maxClients: 1000)
        let (port, server) = try await Self.serve(feed) { $0.maxStreamsPerAddress = 1000; $0.maxConnectionsPerAddress = 1000 }
        defer { server.cancel() }
        let payload = "{\"type\":\"obs.fix\",\"version\":1,\"producer\":\"gps0\",\"payload\":{\"pad\":\"" + String(repeating: "x", count: 200) + "\"}}"
        for k in 0..<200 { feed.add(FeedItem(id: UInt64(k), topic: "obs.fix.gps0", body: Array(payload.utf8))) }
        try await Task.sleep(for: .milliseconds(200))
        let before = Self.mallocInUse()
        var fds: [Int32] = []
        defer { for fd in fds { close(fd) } }
        for i in 0..<clients {
            let fd = Self.connect(from: "127.0.0.\(2 + i % 5)", to: port, "GET /events?history=1 HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(fd >= 0)
            fds.append(fd)
        }
        #expect(await waitUntil(timeout: 10) { feed.clientCount == clients })
        for k in 0..<events {
            feed.add(FeedItem(id: UInt64(200 + k), topic: "obs.fix.gps0", body: Array(payload.utf8)))
            if k % 10 == 0 { try await Task.sleep(for: .milliseconds(5)) }
        }
        try await Task.sleep(for: .seconds(1))
        let after = Self.mallocInUse()
        #expect(before > 0 && after > 0)
        let shared = (events + 200) * 400
        let perClient = (after - before - shared) / clients
        print("idle event streams: \(clients) clients, malloc in use \(before) -> \(after) bytes, \(perClient) bytes a client; \(feed.counters.counters)")
        #expect(feed.counters.counters.clientsCutOff == 0)
        #expect(perClient < 48 * 1024, "\(perClient) bytes a client")
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

import Foundation
import LocusCore
@testable import LocusGpsdServerPlugin
import LocusTestKit
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// A `gpsd-server` sink running in the test process on a free loopback port, fed by the test.
final class RunningGpsdServer: @unchecked Sendable {
    let sink: GpsdServerSink
    let port: Int
    private let continuation: AsyncStream<BusMessage>.Continuation
    private let task: Task<Void, Error>

    /// `settings` as config.yaml would give them (snake_case keys); `ownSources`: the config's
    /// source ids as the runtime hands them to the sink (nil: a setup no config made).
    init(settings: [String: Any] = [:], ownSources: [String]? = nil,
         _ adjust: (inout GpsdServerConfiguration) -> Void = { _ in }) async throws {
        port = try LoopbackPort.free()
        var given = settings
        given["listen"] = "127.0.0.1:\(port)"
        var config = try JSONDecoder().decode(GpsdServerConfiguration.self, from: JSONSerialization.data(withJSONObject: given))
        adjust(&config)
        let sink = try GpsdServerPlugin.make(config, sourceIds: ownSources)
        self.sink = sink
        let (stream, continuation) = AsyncStream<BusMessage>.makeStream(bufferingPolicy: .unbounded)
        self.continuation = continuation
        let context = PluginHarness(id: "gpsd").context
        task = Task { try await sink.run(messages: stream, context: context) }
        let port = self.port
        guard await waitUntil(timeout: 10, { LoopbackPort.accepts(port) }) else { throw TestKitError("the gpsd-server did not listen on \(port)") }
        // The probe's connection is gone before the test's clients come (max_clients tests).
        _ = await waitUntil(timeout: 5) { [sink] in sink.statistics.counters.clientsOpened >= 1 && sink.statistics.counters.clientsOpen == 0 }
    }

    func send(_ message: BusMessage) { continuation.yield(message) }

    /// Publishes `payload` on `topic` as `producer` would; by default as the source that the
    /// topic names (an in-process source publishes `obs.fix.<its id>` as its id).
    func send<P: Payload>(_ payload: P, topic: String, at seconds: Double, producer: String? = nil) {
        let by = producer ?? String(topic.split(separator: ".").last ?? "test")
        send(BusMessage(topic: topic, envelope: Envelope(producer: by, seq: 1, time: EventTime(seconds: seconds), payload: payload)))
    }

    var counters: GpsdServerCounters { sink.statistics.counters }

    /// A counter by its snake_case name (as `locus ctl status` shows it); 0 when there is none.
    func count(_ name: String) -> UInt64 { sink.statistics.counterValues[name] ?? 0 }

    func stop() async {
        continuation.finish()
        _ = try? await task.value
    }
}

struct TestKitError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}


/// A blocking TCP client of the server, reading CR LF-ended JSON lines with a timeout.
final class LineClient {
    let fd: Int32
    private var buffer: [UInt8] = []

    /// `from`: the local address to connect from (127.0.0.2 and up reach loopback on Linux too:
    /// another client address).
    init(port: Int, receiveBuffer: Int? = nil, from local: String? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if let receiveBuffer {
            var size = Int32(receiveBuffer)
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        if let local {
            var me = sockaddr_in()
            me.sin_family = sa_family_t(AF_INET)
            me.sin_addr.s_addr = inet_addr(local)
            let bound = withUnsafePointer(to: &me) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            guard bound else { close(fd); throw TestKitError("cannot bind to \(local)") }
        }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = UInt16(port).bigEndian
        let ok = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard ok else { close(fd); throw TestKitError("cannot connect to 127.0.0.1:\(port)") }
    }

    deinit { close(fd) }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// The next line (without CR LF); nil at end of stream or after `timeout` seconds.
    func line(timeout: Double = 5) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let nl = buffer.firstIndex(of: 0x0A) {
                var line = Array(buffer[..<nl])
                buffer.removeFirst(nl + 1)
                if line.last == 0x0D { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return nil }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, Int32(left * 1000) + 1) > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = recv(fd, &chunk, chunk.count, 0)
            guard n > 0 else { return nil }
            buffer.append(contentsOf: chunk[..<n])
        }
    }

    /// The next line as a JSON object.
    func report(timeout: Double = 5) -> [String: Any]? {
        guard let l = line(timeout: timeout) else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(l.utf8))) as? [String: Any]
    }

    /// The next report of class `kind`, skipping others.
    func next(_ kind: String, timeout: Double = 5) -> [String: Any]? {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            guard let r = report(timeout: deadline.timeIntervalSinceNow) else { return nil }
            if r["class"] as? String == kind { return r }
        }
        return nil
    }

    /// True once the server closed the connection (within `timeout`).
    func closedByServer(timeout: Double = 5) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 100) >= 0 else { return true }
            if pfd.revents != 0 {
                var chunk = [UInt8](repeating: 0, count: 65536)
                let n = recv(fd, &chunk, chunk.count, 0)
                if n <= 0 { return true }
            }
        }
        return false
    }
}

func sampleFix(_ source: String = "gps0", lat: Double = 44.0689, lon: Double = -121.3142, alt: Double = 1124.3) -> Fix {
    var fix = Fix(source: source, mode: .threeD, latitude: lat, longitude: lon)
    fix.altitudeMSL = alt
    fix.altitudeHAE = alt - 19.6
    fix.speed = 1.25
    fix.course = 359.11
    fix.hdop = 0.9
    fix.vdop = 1.5
    fix.pdop = 1.8
    fix.horizontalAccuracy = 3.6
    fix.verticalAccuracy = 6
    fix.quality = .dgps
    return fix
}

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a connection attempt or an open connection failed; the text goes into `disconnected`.
public struct GpsdConnectionError: Error, Sendable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

func errnoText(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }

/// A non-blocking TCP connection to gpsd over POSIX sockets. Every wait is an async sleep of
/// at most `pollInterval`, with a cancellation check in between, so shutdown is prompt and no
/// thread of the cooperative pool is blocked.
final class GpsdConnection {
    static let pollInterval: UInt64 = 20_000_000 // ns
    private(set) var fd: Int32

    private init(fd: Int32) { self.fd = fd }

    deinit { close() }

    func close() {
        if fd >= 0 {
            _ = systemClose(fd)
            fd = -1
        }
    }

    /// One resolved address, copied out of getaddrinfo's list.
    struct Address: Sendable {
        var family: Int32, type: Int32, proto: Int32
        var bytes: [UInt8]
    }

    /// Resolves `host` on a thread of its own: a DNS lookup can block for seconds, which must
    /// hold neither a thread of the cooperative pool nor shutdown (cancellation abandons it).
    static func resolve(host: String, port: Int) async throws -> [Address] {
        let box = ResolveBox()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (cont: CheckedContinuation<[Address], any Error>) in
                box.set(cont)
                let thread = Thread {
                    box.finish(Result { try resolveBlocking(host: host, port: port) })
                }
                thread.start()
            }
        } onCancel: {
            box.finish(.failure(CancellationError()))
        }
    }

    static func resolveBlocking(host: String, port: Int) throws -> [Address] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if os(Linux)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        hints.ai_protocol = Int32(IPPROTO_TCP)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            throw GpsdConnectionError("cannot resolve \(host): \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(first) }
        var out: [Address] = []
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let ai = next {
            next = ai.pointee.ai_next
            guard let addr = ai.pointee.ai_addr else { continue }
            let bytes = Array(UnsafeRawBufferPointer(start: addr, count: Int(ai.pointee.ai_addrlen)))
            out.append(Address(family: ai.pointee.ai_family, type: ai.pointee.ai_socktype, proto: ai.pointee.ai_protocol, bytes: bytes))
        }
        return out
    }

    /// Resolves `host` and connects to the first address that accepts, within `timeout` seconds per address.
    static func connect(host: String, port: Int, timeout: Double = 3) async throws -> GpsdConnection {
        let addresses = try await resolve(host: host, port: port)
        var lastError = "no address for \(host)"
        for a in addresses {
            try Task.checkCancellation()
            let fd = socket(a.family, a.type, a.proto)
            if fd < 0 { lastError = "socket: \(errnoText())"; continue }
            let conn = GpsdConnection(fd: fd)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL, 0) | O_NONBLOCK)
            #if canImport(Darwin)
            var one: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
            #endif
            let rc = a.bytes.withUnsafeBytes { raw in
                systemConnect(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
            }
            if rc == 0 { return conn }
            guard errno == EINPROGRESS else { lastError = "connect to \(host):\(port): \(errnoText())"; continue }
            // Wait for the connection to complete.
            let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int64(timeout * 1000)))
            var done = false
            while ContinuousClock.now < deadline {
                var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                let n = poll(&p, 1, 0)
                if n > 0 { done = true; break }
                if n < 0 && errno != EINTR { break }
                try await Task.sleep(nanoseconds: pollInterval)
            }
            guard done else { lastError = "connect to \(host):\(port): timed out"; continue }
            var err: Int32 = 0
            var len = socklen_t(MemoryLayout<Int32>.size)
            if getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 { err = errno }
            if err == 0 { return conn }
            lastError = "connect to \(host):\(port): \(errnoText(err))"
        }
        throw GpsdConnectionError(lastError)
    }

    /// Sends all of `text` (gpsd commands are short: this does not wait for buffer space for long).
    func send(_ text: String) async throws {
        var bytes = Array(text.utf8)[...]
        var waited = 0
        while !bytes.isEmpty {
            #if os(Linux)
            let flags = Int32(MSG_NOSIGNAL)
            #else
            let flags: Int32 = 0
            #endif
            let n = bytes.withUnsafeBytes { systemSend(fd, $0.baseAddress, $0.count, flags) }
            if n > 0 { bytes = bytes.dropFirst(n); continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                waited += 1
                if waited > 250 { throw GpsdConnectionError("send to gpsd timed out") }
                try await Task.sleep(nanoseconds: GpsdConnection.pollInterval)
                continue
            }
            throw GpsdConnectionError("send to gpsd failed: \(errnoText())")
        }
    }

    enum ReadResult { case data(Int), wouldBlock, closed, failed(String) }

    /// Reads what is available into `buffer` without blocking.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> ReadResult {
        while true {
            let n = systemRead(fd, buffer.baseAddress, buffer.count)
            if n > 0 { return .data(n) }
            if n == 0 { return .closed }
            let e = errno
            if e == EINTR { continue }
            if e == EAGAIN || e == EWOULDBLOCK { return .wouldBlock }
            return .failed(errnoText(e))
        }
    }
}

// The libc functions, under names that do not clash with the methods above.
@inline(__always) private func systemClose(_ fd: Int32) -> Int32 {
    #if canImport(Glibc)
    Glibc.close(fd)
    #elseif canImport(Musl)
    Musl.close(fd)
    #else
    Darwin.close(fd)
    #endif
}

@inline(__always) private func systemConnect(_ fd: Int32, _ addr: UnsafePointer<sockaddr>, _ len: socklen_t) -> Int32 {
    #if canImport(Glibc)
    Glibc.connect(fd, addr, len)
    #elseif canImport(Musl)
    Musl.connect(fd, addr, len)
    #else
    Darwin.connect(fd, addr, len)
    #endif
}

@inline(__always) private func systemSend(_ fd: Int32, _ p: UnsafeRawPointer?, _ n: Int, _ flags: Int32) -> Int {
    #if canImport(Glibc)
    Glibc.send(fd, p, n, flags)
    #elseif canImport(Musl)
    Musl.send(fd, p, n, flags)
    #else
    Darwin.send(fd, p, n, flags)
    #endif
}

@inline(__always) private func systemRead(_ fd: Int32, _ p: UnsafeMutableRawPointer?, _ n: Int) -> Int {
    #if canImport(Glibc)
    Glibc.read(fd, p, n)
    #elseif canImport(Musl)
    Musl.read(fd, p, n)
    #else
    Darwin.read(fd, p, n)
    #endif
}

/// Resumes a continuation exactly once: with the lookup's result or, first, with cancellation.
private final class ResolveBox: @unchecked Sendable {
    /// Guards `continuation` and `early`.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<[GpsdConnection.Address], any Error>?
    private var early: Result<[GpsdConnection.Address], any Error>?

    func set(_ c: CheckedContinuation<[GpsdConnection.Address], any Error>) {
        lock.lock()
        if let early {
            lock.unlock()
            c.resume(with: early)
            return
        }
        continuation = c
        lock.unlock()
    }

    func finish(_ r: Result<[GpsdConnection.Address], any Error>) {
        lock.lock()
        if let c = continuation {
            continuation = nil
            early = r // later calls see a result and do nothing more
            lock.unlock()
            c.resume(with: r)
            return
        }
        if early == nil { early = r }
        lock.unlock()
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Errors of reading an input.
public enum FormatInputError: Error, CustomStringConvertible, Equatable {
    case cannotOpen(path: String, reason: String)
    case readFailed(reason: String)
    case undetectedFormat
    case malformed(format: RecordingFormat, reason: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open \(path): \(reason)"
        case .readFailed(let reason): "read error: \(reason)"
        case .undetectedFormat: "cannot tell the format: no NMEA sentence, gpsd or Locus JSON line or GPX header in the first 64 KiB or the first \(RecordingFormat.maxTextLines) lines of text (use --format nmea|gpsd|gpx|locus)"
        case .malformed(let format, let reason): "not a valid \(format) file: \(reason)"
        }
    }
}

/// A file or pipe read in chunks through a file descriptor, with a look-ahead for format
/// detection (bytes peeked are delivered again by `read`). Not thread-safe.
public final class ByteInput {
    /// Bytes asked for per `read(2)`.
    public static let chunkSize = 1 << 16

    private let fd: Int32
    private let ownsDescriptor: Bool
    private var pending: [UInt8] = []
    /// For an input over bytes in memory: the pieces `read(2)` would still return.
    private var chunks: [[UInt8]] = []
    private var buffer: UnsafeMutableRawBufferPointer
    /// Total bytes handed out so far.
    public private(set) var bytesRead = 0

    /// Opens a file; `-` is standard input.
    public convenience init(path: String) throws {
        if path == "-" { self.init(fileDescriptor: 0, owns: false); return }
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw FormatInputError.cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        var st = stat()
        if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw FormatInputError.cannotOpen(path: path, reason: "is a directory")
        }
        self.init(fileDescriptor: fd, owns: true)
    }

    /// Reads from an open descriptor; closes it at the end only if `owns`.
    public init(fileDescriptor: Int32, owns: Bool = false) {
        fd = fileDescriptor
        ownsDescriptor = owns
        buffer = .allocate(byteCount: ByteInput.chunkSize, alignment: 8)
    }

    /// An input over bytes in memory (tests).
    public convenience init(bytes: [UInt8]) {
        self.init(fileDescriptor: -1)
        pending = bytes
    }

    /// An input over bytes in memory delivered in these pieces, as a pipe might deliver them
    /// (tests and fuzzing of readers across chunk boundaries). Pieces longer than `chunkSize`
    /// are split; empty ones are skipped (an empty read means the end).
    public convenience init(chunks: [[UInt8]]) {
        self.init(fileDescriptor: -1)
        for c in chunks where !c.isEmpty {
            var start = 0
            while start < c.count {
                self.chunks.append(Array(c[start..<min(c.count, start + ByteInput.chunkSize)]))
                start += ByteInput.chunkSize
            }
        }
        self.chunks.reverse()
    }

    deinit {
        buffer.deallocate()
        if ownsDescriptor { close(fd) }
    }

    /// Up to `count` first bytes (fewer at the end of input), without consuming them.
    public func peek(_ count: Int) throws -> [UInt8] {
        while pending.count < count {
            let n = try rawRead()
            if n == 0 { break }
            pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        }
        return Array(pending.prefix(count))
    }

    /// Calls `body` with the next chunk; returns false at the end of input.
    public func read(_ body: (UnsafeRawBufferPointer) throws -> Void) throws -> Bool {
        if !pending.isEmpty {
            let p = pending
            pending = []
            bytesRead += p.count
            try p.withUnsafeBytes { try body($0) }
            return true
        }
        let n = try rawRead()
        if n == 0 { return false }
        bytesRead += n
        try body(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        return true
    }

    /// Copies up to `max` bytes into `dest`; 0 at the end of input.
    public func read(into dest: UnsafeMutablePointer<UInt8>, max: Int) throws -> Int {
        if !pending.isEmpty {
            let n = min(max, pending.count)
            pending.withUnsafeBufferPointer { dest.update(from: $0.baseAddress!, count: n) }
            pending.removeFirst(n)
            bytesRead += n
            return n
        }
        guard fd >= 0 else {
            guard var next = chunks.popLast() else { return 0 }
            let n = min(max, next.count)
            next.withUnsafeBufferPointer { dest.update(from: $0.baseAddress!, count: n) }
            if n < next.count { next.removeFirst(n); chunks.append(next) }
            bytesRead += n
            return n
        }
        while true {
            let n = sysRead(fd, dest, max)
            if n >= 0 { bytesRead += n; return n }
            if errno == EINTR { continue }
            throw FormatInputError.readFailed(reason: String(cString: strerror(errno)))
        }
    }

    private func rawRead() throws -> Int {
        guard fd >= 0 else {
            guard let next = chunks.popLast() else { return 0 }
            next.withUnsafeBytes { buffer.copyMemory(from: $0) }
            return next.count
        }
        while true {
            let n = sysRead(fd, buffer.baseAddress, buffer.count)
            if n >= 0 { return n }
            if errno == EINTR { continue }
            throw FormatInputError.readFailed(reason: String(cString: strerror(errno)))
        }
    }

    /// Calls `line` for each line (without CR/LF; empty lines skipped). Lines longer than
    /// `maxLineBytes` are passed over and counted in the result.
    @discardableResult
    public func forEachLine(maxLineBytes: Int = 1 << 20, _ line: (UnsafeBufferPointer<UInt8>) throws -> Void) throws -> Int {
        var carry: [UInt8] = []
        var overlong = 0
        var skipping = false
        func deliver(_ b: UnsafeBufferPointer<UInt8>) throws {
            var n = b.count
            while n > 0, b[n - 1] == 0x0D { n -= 1 }
            if n > 0 { try line(UnsafeBufferPointer(rebasing: b[0..<n])) }
        }
        while try read({ chunk in
            let bytes = chunk.bindMemory(to: UInt8.self)
            var start = 0
            while start < bytes.count {
                guard let nl = bytes[start...].firstIndex(of: 0x0A) else {
                    if !skipping {
                        carry.append(contentsOf: bytes[start...])
                        if carry.count > maxLineBytes { carry = []; skipping = true; overlong += 1 }
                    }
                    break
                }
                if skipping {
                    skipping = false
                } else if carry.isEmpty {
                    try deliver(UnsafeBufferPointer(rebasing: bytes[start..<nl]))
                } else {
                    carry.append(contentsOf: bytes[start..<nl])
                    if carry.count > maxLineBytes { overlong += 1 } else { try carry.withUnsafeBufferPointer { try deliver($0) } }
                    carry.removeAll(keepingCapacity: true)
                }
                start = nl + 1
            }
        }) {}
        if !skipping, !carry.isEmpty { try carry.withUnsafeBufferPointer { try deliver($0) } }
        return overlong
    }
}

/// read(2), named apart from `ByteInput.read`.
@inline(__always) private func sysRead(_ fd: Int32, _ buf: UnsafeMutableRawPointer?, _ n: Int) -> Int {
    #if canImport(Glibc)
    Glibc.read(fd, buf, n)
    #else
    Darwin.read(fd, buf, n)
    #endif
}

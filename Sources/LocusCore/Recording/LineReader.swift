#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file line by line with a bounded line length, without loading it whole.
/// Lines longer than `maxLineBytes` are reported as `nil` entries so the caller can count them.
public final class LineReader {
    private let handle: UnsafeMutablePointer<FILE>
    private var line: UnsafeMutablePointer<CChar>?
    private var capacity = 0
    public let maxLineBytes: Int
    public private(set) var lineNumber = 0

    public init(path: String, maxLineBytes: Int = 4 << 20) throws {
        guard let f = fopen(path, "r") else {
            throw ReplayError.cannotOpen(path: path, reason: String(cString: strerror(errno)))
        }
        handle = f
        self.maxLineBytes = maxLineBytes
    }

    deinit {
        free(line)
        fclose(handle)
    }

    public enum Line { case text([UInt8]), tooLong, end }

    public func next() -> Line {
        while true {
            let n = getline(&line, &capacity, handle)
            if n < 0 { return .end }
            lineNumber += 1
            var count = n
            while count > 0, line![count - 1] == 0x0A || line![count - 1] == 0x0D { count -= 1 }
            if count == 0 { continue }
            if count > maxLineBytes { return .tooLong }
            return line!.withMemoryRebound(to: UInt8.self, capacity: count) { .text(Array(UnsafeBufferPointer(start: $0, count: count))) }
        }
    }

    public func rewind() {
        fseek(handle, 0, SEEK_SET)
        lineNumber = 0
    }
}

public enum ReplayError: Error, CustomStringConvertible {
    case cannotOpen(path: String, reason: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open recording \(path): \(reason)"
        }
    }
}

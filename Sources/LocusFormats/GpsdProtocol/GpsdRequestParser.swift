import LocusCore

/// Splits what a gpsd client sends into requests. Bytes come in pieces of any size; a request
/// may straddle pieces. Requests start with `?` and end at `;` (or at a line end); the JSON
/// argument of `?WATCH=` and `?DEVICE=` ends with its closing brace. White space and stray `;`
/// between requests are skipped, as gpsd does.
///
/// Bounded: a request (from its `?` to its ending `;` or line end, inclusive) may take at most
/// `maxRequestBytes`, however its bytes arrive: one that waits unfinished past the bound, or
/// arrives whole and longer, is reported as `.tooLong` and everything pending is dropped (the
/// server then closes the connection).
public struct GpsdRequestParser: Sendable {
    public let maxRequestBytes: Int
    /// Received bytes not yet taken as a request.
    private var pending: [UInt8] = []

    /// Longest `device` path a watch may name.
    public static let maxPathBytes = 256

    public init(maxRequestBytes: Int = 4096) {
        self.maxRequestBytes = maxRequestBytes
    }

    /// True while bytes of an unfinished request wait (a server times such a client out).
    public var hasPartialRequest: Bool { !pending.isEmpty }

    /// Takes `bytes` and returns the requests they complete, in order.
    public mutating func feed<C: Collection>(_ bytes: C) -> [Result<GpsdRequest, GpsdRequestProblem>] where C.Element == UInt8 {
        pending.append(contentsOf: bytes)
        var out: [Result<GpsdRequest, GpsdRequestProblem>] = []
        var i = 0
        while true {
            while i < pending.count, Self.isSeparator(pending[i]) { i += 1 }
            guard i < pending.count, let (result, end) = Self.scan(pending, from: i) else { break }
            // The bound holds for a request that arrived whole in one piece too, not only for
            // one that waits unfinished: no request longer than maxRequestBytes is taken.
            if end - i > maxRequestBytes {
                out.append(.failure(.tooLong(limit: maxRequestBytes)))
                pending = []
                return out
            }
            out.append(result)
            i = end
        }
        if i == pending.count {
            pending.removeAll(keepingCapacity: pending.count <= 4096)
        } else if i > 0 {
            pending.removeFirst(i)
        }
        if pending.count > maxRequestBytes {
            out.append(.failure(.tooLong(limit: maxRequestBytes)))
            pending = []
        }
        return out
    }

    // MARK: Scanning

    private static func isSeparator(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0A || b == 0x3B }
    private static func isLetter(_ b: UInt8) -> Bool { (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) }

    /// The request starting at `start` and the index after it; nil when it is not complete yet.
    static func scan(_ b: [UInt8], from start: Int) -> (Result<GpsdRequest, GpsdRequestProblem>, Int)? {
        guard b[start] == 0x3F else { return unrecognized(b, from: start) }  // '?'
        var j = start + 1
        while j < b.count, isLetter(b[j]) { j += 1 }
        guard j < b.count else { return nil }
        let name = String(decoding: b[(start + 1)..<j], as: UTF8.self)
        switch b[j] {
        case 0x3B, 0x0D, 0x0A:  // ';' or a line end: no argument
            return (command(name, argument: nil, text: b[start..<j]), j + 1)
        case 0x3D:  // '='
            guard j + 1 < b.count else { return nil }
            guard b[j + 1] == 0x7B else {
                // Not an object: the rest of the request is the argument, as gpsd reads it.
                guard let end = terminator(b, from: j + 1) else { return nil }
                return (.failure(.invalidArgument(command: name, reason: "the argument is not a JSON object")), end + 1)
            }
            guard let close = objectEnd(b, from: j + 1) else { return nil }
            var end = close + 1
            if end < b.count, b[end] == 0x3B { end += 1 }
            return (command(name, argument: b[(j + 1)...close], text: b[start..<j]), end)
        default:
            return unrecognized(b, from: start)
        }
    }

    /// Anything that is not a request, up to the next `;` or line end.
    private static func unrecognized(_ b: [UInt8], from start: Int) -> (Result<GpsdRequest, GpsdRequestProblem>, Int)? {
        guard let end = terminator(b, from: start) else { return nil }
        return (.failure(.unrecognized(shown(b[start..<end]))), end + 1)
    }

    private static func terminator(_ b: [UInt8], from start: Int) -> Int? {
        var k = start
        while k < b.count {
            if b[k] == 0x3B || b[k] == 0x0A { return k }
            k += 1
        }
        return nil
    }

    /// The index of the brace closing the object that opens at `start`, skipping strings.
    private static func objectEnd(_ b: [UInt8], from start: Int) -> Int? {
        var depth = 0, inString = false, escaped = false
        var k = start
        while k < b.count {
            let c = b[k]
            if inString {
                if escaped { escaped = false } else if c == 0x5C { escaped = true } else if c == 0x22 { inString = false }
            } else if c == 0x22 {
                inString = true
            } else if c == 0x7B || c == 0x5B {
                depth += 1
            } else if c == 0x7D || c == 0x5D {
                depth -= 1
                if depth == 0 { return k }
            }
            k += 1
        }
        return nil
    }

    /// Received text as an ERROR report may quote it: at most 64 bytes, printable ASCII.
    static func shown(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.prefix(64).map { (0x20...0x7E).contains($0) ? $0 : 0x3F }, as: UTF8.self)
    }

    private static func command(_ name: String, argument: ArraySlice<UInt8>?,
                                text: ArraySlice<UInt8>) -> Result<GpsdRequest, GpsdRequestProblem> {
        switch (name, argument) {
        case ("VERSION", nil): return .success(.version)
        case ("POLL", nil): return .success(.poll)
        case ("DEVICES", nil): return .success(.devices)
        case ("WATCH", nil): return .success(.watch(nil))
        case ("DEVICE", nil): return .success(.device(nil))
        case ("WATCH", let a?): return watch(Array(a)).map { .watch($0) }
        case ("DEVICE", let a?): return device(Array(a)).map { .device($0) }
        default: return .failure(.unrecognized(shown(text)))
        }
    }

    // MARK: Arguments

    private static func object(_ bytes: [UInt8], command: String) -> Result<[String: JSONValue], GpsdRequestProblem> {
        guard let value = try? JSONValue.read(bytes), case .object(let members) = value else {
            return .failure(.invalidArgument(command: command, reason: "the argument is not a JSON object"))
        }
        return .success(members)
    }

    static func watch(_ bytes: [UInt8]) -> Result<GpsdWatchRequest, GpsdRequestProblem> {
        let members: [String: JSONValue]
        switch object(bytes, command: "WATCH") {
        case .success(let m): members = m
        case .failure(let p): return .failure(p)
        }
        var w = GpsdWatchRequest()
        func flag(_ key: String, _ value: JSONValue) -> Result<Bool, GpsdRequestProblem> {
            guard case .bool(let b) = value else { return .failure(.invalidArgument(command: "WATCH", reason: "'\(key)' must be true or false")) }
            return .success(b)
        }
        for key in members.keys.sorted() {
            let value = members[key]!
            switch key {
            case "class", "remote":
                guard case .string = value else { return .failure(.invalidArgument(command: "WATCH", reason: "'\(key)' must be a string")) }
            case "enable", "json", "nmea", "scaled", "timing", "split24", "pps":
                switch flag(key, value) {
                case .failure(let p): return .failure(p)
                case .success(let b):
                    switch key {
                    case "enable": w.enable = b
                    case "json": w.json = b
                    case "nmea": w.nmea = b
                    case "scaled": w.scaled = b
                    case "timing": w.timing = b
                    case "split24": w.split24 = b
                    default: w.pps = b
                    }
                }
            case "raw":
                // Older clients send true/false.
                if case .bool(let b) = value { w.raw = b ? 1 : 0; continue }
                guard let n = value.doubleValue, n == n.rounded(), (0...2).contains(n) else {
                    return .failure(.invalidArgument(command: "WATCH", reason: "'raw' must be 0, 1 or 2"))
                }
                w.raw = Int(n)
            case "device":
                guard let path = value.stringValue, !path.isEmpty, path.utf8.count <= maxPathBytes else {
                    return .failure(.invalidArgument(command: "WATCH", reason: "'device' must be a device path of 1 to \(maxPathBytes) bytes"))
                }
                w.device = path
            default:
                return .failure(.invalidArgument(command: "WATCH", reason: "unknown attribute '\(shown(ArraySlice(key.utf8)))'"))
            }
        }
        return .success(w)
    }

    static func device(_ bytes: [UInt8]) -> Result<GpsdDeviceRequest, GpsdRequestProblem> {
        let members: [String: JSONValue]
        switch object(bytes, command: "DEVICE") {
        case .success(let m): members = m
        case .failure(let p): return .failure(p)
        }
        var path: String?
        if let p = members["path"] {
            guard let s = p.stringValue, s.utf8.count <= maxPathBytes else {
                return .failure(.invalidArgument(command: "DEVICE", reason: "'path' must be a device path of at most \(maxPathBytes) bytes"))
            }
            path = s
        }
        let changes = members.keys.filter { $0 != "class" && $0 != "path" }.sorted().map { shown(ArraySlice($0.utf8)) }
        return .success(GpsdDeviceRequest(path: path, changes: changes))
    }
}

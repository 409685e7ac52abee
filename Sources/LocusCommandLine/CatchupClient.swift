import Foundation
import LocusBus
import LocusCore
import LocusStore

/// Where `locus sub` starts: what it asks the catch-up socket for before going live
/// (docs/protocol.md 13.2).
struct CatchupStart: Equatable {
    /// Last sequence number seen per producer (`--since PRODUCER:SEQ`, `--resume`).
    var after: [String: UInt64] = [:]
    /// ISO 8601 time: records journaled at or after it.
    var since: String?

    /// Parses `--since`: `all`, a time (ISO 8601, or `30s`, `10m`, `2h`, `1d` ago), or
    /// `PRODUCER:SEQ[,PRODUCER:SEQ…]`. The error says what is accepted.
    static func parse(_ text: String, now: Date = Date()) -> Result<CatchupStart, CatchupStartError> {
        if text == "all" { return .success(CatchupStart()) }
        if let t = EventTime(iso8601: text) { return .success(CatchupStart(since: t.iso8601)) }
        if let unit = text.last, let n = Double(text.dropLast()), n >= 0,
           let seconds = ["s": 1.0, "m": 60, "h": 3600, "d": 86_400][String(unit)] {
            let t = EventTime(milliseconds: Int64((now.timeIntervalSince1970 - n * seconds) * 1000))
            return .success(CatchupStart(since: t.iso8601))
        }
        var after: [String: UInt64] = [:]
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = item.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, let seq = UInt64(parts[1]) else {
                return .failure(CatchupStartError(description:
                    "--since '\(text)' is not 'all', a time (2026-11-25T10:00:00Z, or 30s, 10m, 2h, 1d ago) or PRODUCER:SEQ[,PRODUCER:SEQ…]"))
            }
            after[String(parts[0])] = seq
        }
        return .success(CatchupStart(after: after))
    }
}

struct CatchupStartError: Error, Equatable, CustomStringConvertible {
    var description: String
}

/// The position file of `locus sub --resume FILE`: `{"after": {producer: seq}}`.
struct ResumeFile {
    let path: String

    /// Larger than any position file (one line per producer): not read.
    static let maxBytes = 16 << 20

    /// nil when the file does not exist yet; throws when it exists but cannot be read.
    func load() throws -> [String: UInt64]? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let size = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
        guard size <= Self.maxBytes else {
            throw CatchupStartError(description: "\(path) is \(size) bytes, not a position file written by locus sub --resume")
        }
        guard let data = FileManager.default.contents(atPath: path),
              let o = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let after = o["after"] as? [String: Any] else {
            throw CatchupStartError(description: "\(path) is not a position file written by locus sub --resume ({\"after\": {producer: seq}})")
        }
        var out: [String: UInt64] = [:]
        for (producer, value) in after {
            guard let n = value as? Int, n >= 0 else { throw CatchupStartError(description: "\(path): after.\(producer) is not a sequence number") }
            out[producer] = UInt64(n)
        }
        return out
    }

    /// Replaces the file (temporary file, then rename: a kill leaves the old or the new one).
    func save(_ after: [String: UInt64]) {
        let body = after.sorted { $0.key < $1.key }.map { "\(Self.quoted($0.key)):\($0.value)" }.joined(separator: ",")
        let temporary = path + ".tmp"
        if FileManager.default.createFile(atPath: temporary, contents: Data("{\"after\":{\(body)}}\n".utf8),
                                          attributes: [.posixPermissions: 0o600]) {
            _ = rename(temporary, path)
        }
    }

    static func quoted(_ s: String) -> String {
        var w = JSONWriter()
        w.string(s)
        return String(decoding: w.bytes, as: UTF8.self)
    }
}

/// Asks the catch-up socket for pages until the end (docs/protocol.md 13.2). Runs on the
/// thread that owns the subscriber's sockets.
struct CatchupClient {
    var endpoint: String
    var start: CatchupStart
    var prefixes: [String]
    /// The sync token subscribed on the SUB socket, without its leading NUL.
    var token: String
    var curve: CurveClient? = nil
    var pageTimeout = 15.0

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// Calls `handle` for every event served, in order. Returns true if the journal no longer
    /// held everything asked for (`truncated`).
    func run(context: ZMQContext, interrupted: () -> Bool, handle: (String, [UInt8]) throws -> Void) throws -> Bool {
        let dealer = try ZMQSocket(context: context, type: .dealer)
        defer { dealer.close() }
        try dealer.setOption(.linger(milliseconds: 0))
        if let curve, endpoint.hasPrefix("tcp://") { try dealer.setCurveClient(curve) }
        try dealer.connect(endpoint)
        var request: [String: Any] = ["type": "catchup.request", "version": 1, "token": token, "limit": 1000]
        if !prefixes.isEmpty, !prefixes.contains("") { request["topics"] = prefixes }
        if !start.after.isEmpty { request["after"] = start.after.mapValues { Int($0) } }
        if let since = start.since { request["since"] = since }
        var truncated = false
        while true {
            _ = try dealer.send([try JSONSerialization.data(withJSONObject: request)].map { Array($0) })
            var frames: [[UInt8]]?
            let deadline = Date().addingTimeInterval(pageTimeout)
            while frames == nil {
                if interrupted() { return truncated }
                guard Date() < deadline else {
                    throw Failure(description: "no answer from the catch-up socket \(endpoint) within \(Int(pageTimeout)) s (is locus running, with hub.journal on?)")
                }
                frames = try dealer.receiveMultipart(timeoutMilliseconds: 100)
            }
            guard let frames, let header = try? JSONSerialization.jsonObject(with: Data(frames[0])) as? [String: Any] else {
                throw Failure(description: "the catch-up socket answered something that is not a catchup.page")
            }
            if header["type"] as? String == "catchup.error" {
                throw Failure(description: "the catch-up socket refused: \(header["error"] as? String ?? "?")")
            }
            guard header["type"] as? String == "catchup.page", let n = header["events"] as? Int, frames.count == 1 + 2 * n else {
                throw Failure(description: "the catch-up socket answered something that is not a catchup.page")
            }
            if header["truncated"] as? Bool == true { truncated = true }
            for k in 0..<n { try handle(String(decoding: frames[1 + 2 * k], as: UTF8.self), frames[2 + 2 * k]) }
            if header["end"] as? Bool == true { return truncated }
            guard let next = header["next"] else { throw Failure(description: "a catch-up page without next and not at the end") }
            request = ["type": "catchup.request", "version": 1, "cursor": next, "limit": 1000]
            if !prefixes.isEmpty, !prefixes.contains("") { request["topics"] = prefixes }
        }
    }
}

/// After a catch-up, the live messages that it already delivered: per producer, those at or
/// below the last sequence number the catch-up gave, until the first one above it.
struct OverlapFilter {
    private var caughtUp: [String: UInt64]

    init(caughtUp: [String: UInt64]) { self.caughtUp = caughtUp }

    /// True if the live message is a repeat of one the catch-up delivered.
    mutating func isRepeat(_ body: [UInt8]) -> Bool {
        guard !caughtUp.isEmpty, let origin = body.withUnsafeBytes({ EnvelopeOrigin.read($0) }),
              let last = caughtUp[origin.producer] else { return false }
        if origin.seq <= last { return true }
        caughtUp[origin.producer] = nil
        return false
    }
}

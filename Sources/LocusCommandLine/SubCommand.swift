import ArgumentParser
import Foundation
import LocusBus
import LocusConsolePlugin
import LocusCore
import LocusStore
import Logging

/// Shared by `sub` and `record`: a SUB socket on the calling thread, until Ctrl-C, a count, or a duration.
struct SubscriberLoop {
    var endpoint: String
    var prefixes: [String]
    var count: Int?
    var duration: Double?
    /// Keys for CURVE endpoints (the catch-up endpoint too), nil for plain ones.
    var curve: CurveClient?
    /// `--wait`: when nothing listens yet, wait for `locus run` instead of failing.
    var wait = false
    /// The command, for what is said on stderr (`locus sub: …`).
    var command = "sub"

    func run(_ handle: (String, [UInt8]) throws -> Void) throws {
        try run(catchup: nil, handle)
    }

    /// With `catchup`, first asks the catch-up socket for what was missed, then goes live
    /// without a gap or a repeat (docs/protocol.md 13.2). Returns true if the journal no longer
    /// held all that was asked for.
    @discardableResult
    func run(catchup: (endpoint: String, start: CatchupStart)?, _ handle: (String, [UInt8]) throws -> Void) throws -> Bool {
        InterruptFlag.install()
        let deadline = duration.map { Date().addingTimeInterval($0) }
        guard try awaitHub(catchup: catchup?.endpoint, until: deadline) else { return false }
        let context = ZMQContext()
        let socket = try ZMQSocket(context: context, type: .sub)
        defer { socket.close() }
        try socket.setReceiveHighWaterMark(0)
        // CURVE is for tcp; ipc sockets are protected by file permissions (and an exec
        // plugin's inherited LOCUS_SERVER_KEY must not silence its ipc connection).
        if let curve, endpoint.hasPrefix("tcp://") { try socket.setCurveClient(curve) }
        // Connect first: subscriptions made before connecting are sent in prefix-tree order,
        // which would put the token (it starts with NUL) before the prefixes.
        try socket.connect(endpoint)
        for p in prefixes.isEmpty ? [""] : prefixes { try socket.subscribe(p) }
        // Last, so that once the hub has it every prefix above is active (SyncToken).
        let token = "sync." + UUID().uuidString.lowercased()
        if catchup != nil { try socket.subscribe([0] + Array(token.utf8)) }
        var received = 0
        var overlap = OverlapFilter(caughtUp: [:])
        var truncated = false
        if let catchup {
            var last = catchup.start.after
            var done = false
            truncated = try CatchupClient(endpoint: catchup.endpoint, start: catchup.start, prefixes: prefixes, token: token, curve: curve)
                .run(context: context, interrupted: { InterruptFlag.isRaised || done }) { topic, body in
                    if let o = body.withUnsafeBytes({ EnvelopeOrigin.read($0) }) { last[o.producer] = o.seq }
                    try handle(topic, body)
                    received += 1
                    if let count, received >= count { done = true }
                }
            if done { return truncated }
            overlap = OverlapFilter(caughtUp: last)
            // The token has done its work; it counts against the hub's subscription limits.
            try socket.unsubscribe([0] + Array(token.utf8))
        }
        while !InterruptFlag.isRaised {
            if let deadline, Date() >= deadline { break }
            guard let frames = try socket.receiveMultipart(timeoutMilliseconds: 100) else { continue }
            guard frames.count == 2 else { continue }
            if overlap.isRepeat(frames[1]) { continue }
            try handle(String(decoding: frames[0], as: UTF8.self), frames[1])
            received += 1
            if let count, received >= count { break }
        }
        return truncated
    }

    /// Throws `NotListeningError` when an ipc socket to connect to has no file; with `wait`,
    /// says so once on stderr and waits for it instead. Returns false if Ctrl-C or the end of
    /// `--duration` came first. Call `InterruptFlag.install()` before.
    func awaitHub(catchup: String?, until deadline: Date?) throws -> Bool {
        let presence = HubPresence(publish: endpoint, catchup: catchup)
        guard let missing = presence.firstMissing() else { return true }
        guard wait else { throw missing }
        FileHandle.standardError.write(Data("locus \(command): \(missing.waitingDescription)\n".utf8))
        while presence.firstMissing() != nil {
            if InterruptFlag.isRaised { return false }
            if let deadline, Date() >= deadline { return false }
            usleep(100_000)
        }
        return true
    }
}

/// What `sub` and `record` share: where to connect, what to select, when to stop.
struct SubscriptionOptions: ParsableArguments {
    @Option(name: .shortAndLong, help: "Publish endpoint of the hub, e.g. ipc:///run/locus/publish.sock or tcp://127.0.0.1:5556.")
    var endpoint: String?

    @Option(name: .long, help: "Config file to read the default endpoint from.")
    var config: String?

    @Option(name: .shortAndLong, help: "Stop after this many messages.")
    var count: Int?

    @Option(name: .long, help: "Stop after this many seconds.")
    var duration: Double?

    @Flag(name: .long, help: "If nothing listens at the endpoint yet (no socket file), wait for `locus run` to start instead of exiting 1.")
    var wait = false

    @Argument(help: "Topic prefixes, e.g. obs.fix. status. (default: everything).")
    var prefixes: [String] = []

    @OptionGroup var keys: CurveClientOptions

    func validate() throws {
        for p in prefixes where !Topic.isValidPrefix(p) {
            throw ValidationError("'\(p)' is not a topic prefix: lower-case segments of a-z 0-9 _ - joined by dots, e.g. obs.fix.")
        }
    }

    /// The loop for these options; the endpoint defaults to where `locus run` publishes.
    func loop(command: String) throws -> SubscriberLoop {
        let target = endpoint ?? ConfigSupport.defaultEndpoints(configPath: config).publish
        do { try Endpoint.validate(target) } catch { throw ValidationError("\(error)") }
        return SubscriberLoop(endpoint: target, prefixes: prefixes, count: count, duration: duration, curve: try keys.client(),
                              wait: wait, command: command)
    }
}

struct SubCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sub",
        abstract: "Subscribe to the hub and print events.",
        discussion: """
        With no --endpoint, connects where `locus run` publishes by default (the `hub.publish` of \
        --config; else $LOCUS_RUNTIME_DIR/publish.sock when the variable is set; else the \
        `hub.publish` of ./config.yaml when there is one; else the runtime directory's publish.sock). Topic prefixes \
        select what to print, e.g. `locus sub obs.fix. status.`; none prints everything. Ctrl-C exits 0.
        When nothing listens at an ipc endpoint (no socket file: `locus run` is not running), \
        exits 1 saying so, as `locus ctl` does; --wait waits for it instead.

        Sequence gaps (docs/protocol.md 4.2) are reported on stderr as they happen, with a \
        summary at the end; with --json a line after a gap also carries \
        "gap": {"producer", "after", "seq", "missed"[, "restarted"]}.

        --since and --resume first print what the daemon's journal holds that this subscriber \
        has not seen (the catch-up socket, docs/protocol.md 13.2), then continue live without a \
        gap or a repeat. The journal takes service events, not obs. or clock. messages. \
        --resume FILE keeps the last sequence number seen per producer in FILE (rewritten at \
        most every 0.2 s and at exit): run it again with the same FILE to get exactly what \
        came meanwhile. After a kill -9, what was printed in the last 0.2 s is printed again.
        """
    )

    @OptionGroup var subscription: SubscriptionOptions

    @Option(name: .long, help: ArgumentHelp("Catch up first: 'all' the journal holds, a time (2026-11-25T10:00:00Z, or 30s, 10m, 2h, 1d ago), or PRODUCER:SEQ[,PRODUCER:SEQ…] (the last seen of each).", valueName: "when"))
    var since: String?

    @Option(name: .long, help: ArgumentHelp("Keep the position (last sequence number per producer) in this file and continue from it when started again.", valueName: "file"))
    var resume: String?

    @Option(name: .long, help: "Catch-up endpoint of the hub (default: the hub.catchup of the config, else the runtime directory's catchup.sock).")
    var catchupEndpoint: String?

    @Flag(name: .long, help: "Print recording-format JSON lines instead of readable lines.")
    var json = false

    func run() async throws {
        let registry = ConfigSupport.registry
        let loop = try subscription.loop(command: "sub")
        let filtered = !subscription.prefixes.isEmpty && !subscription.prefixes.contains("")
        var start: CatchupStart?
        if let since {
            switch CatchupStart.parse(since) {
            case .success(let s): start = s
            case .failure(let e): throw ValidationError(e.description)
            }
        }
        let resumeFile = resume.map { ResumeFile(path: $0) }
        var saved: [String: UInt64]?
        do {
            saved = try resumeFile?.load()
        } catch {
            FileHandle.standardError.write(Data("locus sub: \(error)\n".utf8))
            throw ExitCode(ExitStatus.failure)
        }
        if let saved {
            // The file's positions win over --since for the producers it knows.
            start = CatchupStart(after: (start?.after ?? [:]).merging(saved) { _, file in file }, since: start?.since)
        }
        let catchup = start.map { s -> (endpoint: String, start: CatchupStart) in
            (catchupEndpoint ?? ConfigSupport.defaultEndpoints(configPath: subscription.config).catchup, s)
        }
        if let c = catchup, c.endpoint.isEmpty {
            throw ValidationError("the config turns the journal off (hub.journal: false): there is no catch-up socket; give --catchup-endpoint")
        }
        var gaps = SequenceGapTracker(lastSeen: saved ?? [:], perTopic: filtered)
        var received = 0
        var lastSave = Date.distantPast
        defer { resumeFile?.save(gaps.lastSeen) }
        do {
            let truncated = try loop.run(catchup: catchup) { topic, body in
                received += 1
                let envelope = try? EnvelopeCodec.decode(body, registry: registry)
                let gap = envelope.flatMap { gaps.check($0, topic: topic) }
                if let gap { Self.report(gap, filtered: filtered) }
                let line: String
                if json {
                    var bytes = RecordingLine.encode(topic: topic, body: body).dropLast()
                    if let gap {
                        // The gap as a field of the line, before the closing brace:
                        // {"topic":…,"envelope":…,"gap":{"producer":…,"after":…,"seq":…,"missed":…}}
                        bytes.removeLast()
                        bytes += Array(",\"gap\":\(Self.json(gap))}".utf8)
                    }
                    line = String(decoding: bytes, as: UTF8.self)
                } else if let envelope {
                    line = EventSummary.line(for: BusMessage(topic: topic, envelope: envelope, body: body))
                } else {
                    line = "\(topic) (undecodable) " + String(decoding: body, as: UTF8.self)
                }
                print(line)
                StandardOutput.flush()
                if let resumeFile, Date().timeIntervalSince(lastSave) >= 0.2 {
                    resumeFile.save(gaps.lastSeen)
                    lastSave = Date()
                }
            }
            if truncated {
                FileHandle.standardError.write(Data("locus sub: the journal no longer holds everything after the position asked for (retention): some events are missing\n".utf8))
            }
        } catch {
            FileHandle.standardError.write(Data("locus sub: \(error)\n".utf8))
            throw ExitCode(ExitStatus.failure)
        }
        if gaps.gaps > 0 {
            let per = gaps.missed.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            FileHandle.standardError.write(Data("locus sub: \(received) message(s), \(gaps.missedTotal) missed in \(gaps.gaps) gap(s)\(per.isEmpty ? "" : " (\(per))")\n".utf8))
        }
    }

    /// One stderr line per gap (the way docs/protocol.md 4.2 reads them).
    static func report(_ gap: SequenceGap, filtered: Bool) {
        // Per topic (topic_seq) when subscribed to some prefixes: then a jump is loss, as with seq
        // when subscribed to everything. Only seq compared under a filter can mean "other topics".
        let name = gap.topic.map { "\(gap.producer) \($0)" } ?? gap.producer
        let field = gap.topic == nil ? "seq" : "topic_seq"
        let text: String
        if gap.restarted {
            text = "locus sub: \(name) restarted (\(field) \(gap.after) -> 1)\n"
        } else if gap.missed == 0 {
            text = "locus sub: \(name) \(field) went back from \(gap.after) to \(gap.seq) (two producers with one id?)\n"
        } else {
            let why = filtered && gap.topic == nil ? "lost, or on topics not subscribed to" : "lost"
            text = "locus sub: gap: \(name) \(field) \(gap.after) -> \(gap.seq), \(gap.missed) message(s) \(why)\n"
        }
        FileHandle.standardError.write(Data(text.utf8))
    }

    static func json(_ gap: SequenceGap) -> String {
        var w = JSONWriter()
        w.beginObject()
        w.key("producer"); w.string(gap.producer)
        if let topic = gap.topic { w.key("topic"); w.string(topic) }
        w.key("after"); w.int(gap.after)
        w.key("seq"); w.int(gap.seq)
        w.key("missed"); w.int(gap.missed)
        if gap.restarted { w.key("restarted"); w.bool(true) }
        w.endObject()
        return String(decoding: w.bytes, as: UTF8.self)
    }
}

struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record bus messages to a file (the format the replay source and `locus replay` read).",
        discussion: """
        Appends one JSON line per message: {"topic": …, "envelope": …}. Ctrl-C or SIGTERM stops cleanly. \
        When nothing listens at an ipc endpoint (no socket file: `locus run` is not running), \
        exits 1 saying so, as `locus ctl` does, and creates no file; --wait waits for it instead.
        """
    )

    @Option(name: .shortAndLong, help: "File to append to ('-' for standard output).")
    var output: String

    @OptionGroup var subscription: SubscriptionOptions

    func run() async throws {
        let loop = try subscription.loop(command: "record")
        // Before the file is created: a record that cannot start leaves no empty file behind.
        InterruptFlag.install()
        do {
            guard try loop.awaitHub(catchup: nil, until: subscription.duration.map { Date().addingTimeInterval($0) }) else { return }
        } catch {
            FileHandle.standardError.write(Data("locus record: \(error)\n".utf8))
            throw ExitCode(ExitStatus.failure)
        }
        let handle: FileHandle
        if output == "-" {
            handle = FileHandle.standardOutput
        } else {
            if !FileManager.default.fileExists(atPath: output) {
                guard FileManager.default.createFile(atPath: output, contents: nil) else {
                    FileHandle.standardError.write(Data("locus record: cannot create \(output)\n".utf8))
                    throw ExitCode(ExitStatus.failure)
                }
            }
            guard let h = FileHandle(forWritingAtPath: output) else {
                FileHandle.standardError.write(Data("locus record: cannot open \(output) for writing\n".utf8))
                throw ExitCode(ExitStatus.failure)
            }
            h.seekToEndOfFile()
            handle = h
        }
        do {
            try loop.run { topic, body in
                try handle.write(contentsOf: RecordingLine.encode(topic: topic, body: body))
            }
            try handle.synchronize()
        } catch {
            FileHandle.standardError.write(Data("locus record: \(error)\n".utf8))
            throw ExitCode(ExitStatus.failure)
        }
    }
}

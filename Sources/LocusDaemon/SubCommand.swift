import ArgumentParser
import Foundation
import LocusBus
import LocusConsoleSink
import LocusCore
import Logging

/// Shared by `sub` and `record`: a SUB socket on the calling thread, until Ctrl-C, a count, or a duration.
struct SubscriberLoop {
    var endpoint: String
    var prefixes: [String]
    var count: Int?
    var duration: Double?

    func run(_ handle: (String, [UInt8]) throws -> Void) throws {
        InterruptFlag.install()
        let context = ZMQContext()
        let socket = try ZMQSocket(context: context, type: .sub)
        defer { socket.close() }
        try socket.setReceiveHighWaterMark(0)
        for p in prefixes.isEmpty ? [""] : prefixes { try socket.subscribe(p) }
        try socket.connect(endpoint)
        let deadline = duration.map { Date().addingTimeInterval($0) }
        var received = 0
        while !InterruptFlag.isRaised {
            if let deadline, Date() >= deadline { break }
            guard let frames = try socket.receiveMultipart(timeoutMilliseconds: 100) else { continue }
            guard frames.count == 2 else { continue }
            try handle(String(decoding: frames[0], as: UTF8.self), frames[1])
            received += 1
            if let count, received >= count { break }
        }
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

    @Argument(help: "Topic prefixes, e.g. obs.fix. status. (default: everything).")
    var prefixes: [String] = []

    func validate() throws {
        for p in prefixes where !Topic.isValidPrefix(p) {
            throw ValidationError("'\(p)' is not a topic prefix: lower-case segments of a-z 0-9 _ - joined by dots, e.g. obs.fix.")
        }
    }

    /// The loop for these options; the endpoint defaults to where `locus run` publishes.
    func loop() throws -> SubscriberLoop {
        let target = endpoint ?? ConfigSupport.defaultEndpoints(configPath: config).publish
        do { try Endpoint.validate(target) } catch { throw ValidationError("\(error)") }
        return SubscriberLoop(endpoint: target, prefixes: prefixes, count: count, duration: duration)
    }
}

struct SubCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sub",
        abstract: "Subscribe to the hub and print events.",
        discussion: """
        With no --endpoint, connects where `locus run` publishes by default (the `hub.publish` of \
        ./config.yaml when there is one, else the runtime directory's publish.sock). Topic prefixes \
        select what to print, e.g. `locus sub obs.fix. status.`; none prints everything. Ctrl-C exits 0.

        Sequence gaps (docs/protocol.md 4.2) are reported on stderr as they happen, with a \
        summary at the end; with --json a line after a gap also carries \
        "gap": {"producer", "after", "seq", "missed"[, "restarted"]}.
        """
    )

    @OptionGroup var subscription: SubscriptionOptions

    @Flag(name: .long, help: "Print recording-format JSON lines instead of readable lines.")
    var json = false

    func run() async throws {
        let registry = ConfigSupport.registry
        let loop = try subscription.loop()
        let filtered = !subscription.prefixes.isEmpty && !subscription.prefixes.contains("")
        var gaps = SequenceGapTracker()
        var received = 0
        do {
            try loop.run { topic, body in
                received += 1
                let envelope = try? EnvelopeCodec.decode(body, registry: registry)
                let gap = envelope.flatMap { gaps.check(producer: $0.producer, seq: $0.seq) }
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
                fflush(stdout)
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
        let text: String
        if gap.restarted {
            text = "locus sub: \(gap.producer) restarted (seq \(gap.after) -> 1)\n"
        } else if gap.missed == 0 {
            text = "locus sub: \(gap.producer) seq went back from \(gap.after) to \(gap.seq) (two producers with one id?)\n"
        } else {
            let why = filtered ? "lost, or on topics not subscribed to" : "lost"
            text = "locus sub: gap: \(gap.producer) seq \(gap.after) -> \(gap.seq), \(gap.missed) message(s) \(why)\n"
        }
        FileHandle.standardError.write(Data(text.utf8))
    }

    static func json(_ gap: SequenceGap) -> String {
        var w = JSONWriter()
        w.beginObject()
        w.key("producer"); w.string(gap.producer)
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
        discussion: "Appends one JSON line per message: {\"topic\": …, \"envelope\": …}. Ctrl-C or SIGTERM stops cleanly."
    )

    @Option(name: .shortAndLong, help: "File to append to ('-' for standard output).")
    var output: String

    @OptionGroup var subscription: SubscriptionOptions

    func run() async throws {
        let loop = try subscription.loop()
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

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
        """
    )

    @OptionGroup var subscription: SubscriptionOptions

    @Flag(name: .long, help: "Print recording-format JSON lines instead of readable lines.")
    var json = false

    func run() async throws {
        let registry = ConfigSupport.registry
        let loop = try subscription.loop()
        do {
            try loop.run { topic, body in
                let line: String
                if json {
                    line = String(decoding: RecordingLine.encode(topic: topic, body: body).dropLast(), as: UTF8.self)
                } else if let envelope = try? EnvelopeCodec.decode(body, registry: registry) {
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

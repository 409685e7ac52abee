import Foundation
import LocusBus
import LocusCore
import LocusPlugins
import Logging
@testable import LocusRuntime

/// Toy plugins for the control-command tests: a feeder source the test drives, a counter
/// service that answers commands, and a recorder sink. They find the test's `CommandTestBench`
/// through the `bench` key of their config, so tests running side by side do not meet.
enum CommandTestPlugins {
    static var factories: [PluginFactory] { [feeder, counter, recorder] }

    static var registry: PayloadRegistry {
        var r = BuiltinPlugins.payloadRegistry
        r.register(TestPing.self)
        r.register(CounterEvent.self)
        return r
    }

    /// `test.ping`: what the feeder publishes.
    struct TestPing: Payload, Equatable {
        static let eventType = "test.ping"
        static let schemaVersion = 1
        var n: Int
        func write(to w: inout JSONWriter) {
            w.beginObject(); w.key("n"); w.int(n); w.endObject()
        }
        init(n: Int) { self.n = n }
        init(from r: inout JSONReader) throws {
            var n: Int?
            try r.readObject { r, k in if k == "n" { n = try r.readInt() } else { try r.skipValue() } }
            guard let n else { throw r.error("test.ping needs n") }
            self.n = n
        }
    }

    /// `test.counter`: what the counter emits, `seen` per ping, `added`/`removed` per command.
    struct CounterEvent: Payload, Equatable {
        static let eventType = "test.counter"
        static let schemaVersion = 1
        var kind: String
        var detail: String
        func write(to w: inout JSONWriter) {
            w.beginObject(); w.key("kind"); w.string(kind); w.key("detail"); w.string(detail); w.endObject()
        }
        init(kind: String, detail: String) { self.kind = kind; self.detail = detail }
        init(from r: inout JSONReader) throws {
            var kind = "", detail = ""
            try r.readObject { r, k in
                if k == "kind" { kind = try r.readString() } else if k == "detail" { detail = try r.readString() } else { try r.skipValue() }
            }
            self.init(kind: kind, detail: detail)
        }
    }

    struct BenchConfig: PluginConfiguration {
        var bench: String
        var prefix: String
        var topics: [String]
        var paced: Bool
        var slow: Int
        static let keys: [ConfigKey] = [
            ConfigKey("bench", "string", default: nil, "The test's bench id."),
            ConfigKey("prefix", "string", default: "counter", "First word of the counter's commands."),
            ConfigKey("topics", "list of strings", default: "[\"test.\"]", "What the recorder records."),
            ConfigKey("paced", "boolean", default: "false", "The feeder waits for consumers, as a source reading a file does."),
            ConfigKey("slow", "integer", default: "0", "Microseconds the recorder spends on each message."),
        ]
        enum CodingKeys: String, CodingKey { case bench, prefix, topics, paced, slow }
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            bench = try c.decode(String.self, forKey: .bench)
            prefix = try c.decodeIfPresent(String.self, forKey: .prefix) ?? "counter"
            topics = try c.decodeIfPresent([String].self, forKey: .topics) ?? ["test."]
            paced = try c.decodeIfPresent(Bool.self, forKey: .paced) ?? false
            slow = try c.decodeIfPresent(Int.self, forKey: .slow) ?? 0
        }
    }

    struct Feeder: SourcePlugin {
        let bench: CommandTestBench
        var paced = false
        var produces: [String] { ["test.ping"] }
        func run(context: PluginContext) async throws {
            for await n in bench.pings {
                if paced { try await context.waitForConsumers() }
                context.publish(TestPing(n: n), topic: "test.ping", time: EventTime(seconds: Double(n)))
            }
        }
    }

    static let feeder = PluginFactory.source("test-feeder", summary: "pings the test pushes", config: BenchConfig.self) { c, _ in
        Feeder(bench: CommandTestBench.named(c.bench), paced: c.paced)
    }

    /// Keeps a list of names; `seen` counts pings received (also its reported counter `seen`).
    struct Counter: CommandableService, ReportsCounters {
        let id: String
        let prefix: String
        let bench: CommandTestBench
        var names: [String] = []
        var seen = 0
        var now = EventTime(milliseconds: 0)

        var subscriptions: [String] { ["test.ping"] }
        var produces: [String] { ["test.counter.\(id)"] }
        var commands: [ServiceCommand] {
            [ServiceCommand("\(prefix).add", summary: "Add name=<text>."),
             ServiceCommand("\(prefix).remove", summary: "Remove name=<text>."),
             ServiceCommand("\(prefix).list", summary: "The names, in the order added."),
             ServiceCommand("\(prefix).boom", summary: "Throws an error that is not a ServiceCommandError.")]
        }

        var reportedCounters: [String: UInt64] { ["seen": UInt64(seen), "names": UInt64(names.count)] }

        struct Boom: Error, CustomStringConvertible { var description: String { "the toy exploded" } }
        struct Crash: Error, CustomStringConvertible { var description: String { "crashing as the test asked" } }

        mutating func receive(_ message: BusMessage, output: inout ServiceOutput) throws {
            if bench.crashing { throw Crash() }
            if bench.stuck > 0 {
                bench.insideStuckReceive = true
                _ = bench.unstick.wait(timeout: .now() + bench.stuck)
            }
            guard let ping = message.payload(TestPing.self) else { return }
            now = message.time
            seen += 1
            output.emit(CounterEvent(kind: "seen", detail: "\(ping.n)"), topic: "test.counter.\(id)", time: now)
        }

        mutating func handle(command: String, arguments: JSONValue, output: inout ServiceOutput) throws -> JSONValue {
            guard case .object(let fields) = arguments else { throw ServiceCommandError("arguments must be an object") }
            if let unknown = fields.keys.sorted().first(where: { $0 != "name" }) {
                throw ServiceCommandError("unknown argument '\(unknown)'; \(command) takes name")
            }
            switch command.dropFirst(prefix.count + 1) {
            case "add":
                guard let name = fields["name"]?.stringValue else { throw ServiceCommandError("add needs name=<text>") }
                guard !names.contains(name) else { throw ServiceCommandError("'\(name)' is already there") }
                names.append(name)
                output.emit(CounterEvent(kind: "added", detail: name), topic: "test.counter.\(id)", time: now)
                return .object(["added": .string(name), "seen": .number(Double(seen))])
            case "remove":
                guard let name = fields["name"]?.stringValue, let i = names.firstIndex(of: name) else {
                    throw ServiceCommandError("no name '\(fields["name"]?.stringValue ?? "")'")
                }
                names.remove(at: i)
                output.emit(CounterEvent(kind: "removed", detail: name), topic: "test.counter.\(id)", time: now)
                return .object(["removed": .string(name)])
            case "list":
                return .array(names.map { .string($0) })
            case "boom":
                // Emits before throwing: the runtime must not publish it.
                output.emit(CounterEvent(kind: "boom", detail: ""), topic: "test.counter.\(id)", time: now)
                throw Boom()
            default:
                throw ServiceCommandError("unknown command \(command)")
            }
        }
    }

    static let counter = PluginFactory.service("test-counter", summary: "counts and keeps names", config: BenchConfig.self) { c, setup in
        Counter(id: setup.id, prefix: c.prefix, bench: CommandTestBench.named(c.bench))
    }

    struct Recorder: SinkPlugin {
        let bench: CommandTestBench
        let subscriptions: [String]
        var slow = 0
        func run(messages: AsyncStream<BusMessage>, context: PluginContext) async throws {
            for await m in messages {
                if slow > 0 { try await Task.sleep(nanoseconds: UInt64(slow) * 1000) }
                bench.record(m)
            }
        }
    }

    static let recorder = PluginFactory.sink("test-recorder", summary: "records for the test", config: BenchConfig.self) { c, _ in
        Recorder(bench: CommandTestBench.named(c.bench), subscriptions: c.topics, slow: c.slow)
    }
}

/// What one test shares with its toy plugins: the pings to publish, whether the counter
/// crashes, and the messages the recorder got.
final class CommandTestBench: @unchecked Sendable {
    let id = "bench-\(UUID().uuidString.prefix(8).lowercased())"
    let pings: AsyncStream<Int>
    private let pingInput: AsyncStream<Int>.Continuation
    /// Guards `_crashing`, `_recorded`, `_stuck` and `_inside`.
    private let lock = NSLock()
    private var _crashing = false
    private var _recorded: [BusMessage] = []

    /// Guards `benches`.
    private static let lock = NSLock()
    nonisolated(unsafe) private static var benches: [String: CommandTestBench] = [:]

    init() {
        (pings, pingInput) = AsyncStream.makeStream(of: Int.self)
        Self.lock.withLock { Self.benches[id] = self }
    }

    static func named(_ id: String) -> CommandTestBench {
        lock.withLock { benches[id]! }
    }

    func ping(_ numbers: ClosedRange<Int>) {
        for n in numbers { pingInput.yield(n) }
    }

    var crashing: Bool {
        get { lock.withLock { _crashing } }
        set { lock.withLock { _crashing = newValue } }
    }

    /// Seconds the counter spends inside `receive` for each ping, blind to cancellation (a
    /// service restoring a large store); 0: none.
    var stuck: Double {
        get { lock.withLock { _stuck } }
        set { lock.withLock { _stuck = newValue } }
    }
    private var _stuck = 0.0
    /// Set once the counter is inside such a `receive`.
    var insideStuckReceive: Bool {
        get { lock.withLock { _inside } }
        set { lock.withLock { _inside = newValue } }
    }
    private var _inside = false
    /// Ends a stuck `receive` early (a test's cleanup: an abandoned plugin's thread would
    /// otherwise hold one of the few cooperative threads into the next tests).
    let unstick = DispatchSemaphore(value: 0)

    func record(_ m: BusMessage) { lock.withLock { _recorded.append(m) } }
    var recorded: [BusMessage] { lock.withLock { _recorded } }

    /// The counter events `producer` published, in order, as "kind detail".
    func counterEvents(from producer: String) -> [String] {
        recorded.filter { $0.envelope.producer == producer }
            .compactMap { $0.payload(CommandTestPlugins.CounterEvent.self) }
            .map { "\($0.kind) \($0.detail)" }
    }
}

import Foundation
import LocusCore
import Logging
import Testing
@testable import LocusRuntime

/// A service far behind on its messages at shutdown: once the group cancels it (after the
/// graceful period), it must stop within the group's cancellation budget (400 ms), not work
/// through its backlog — ServiceLifecycle aborts the whole process (SIGILL) past that budget.
@Suite("Plugin runner shutdown")
struct PluginRunnerShutdownTests {
    /// 2 ms per message: a backlog of 2,000 takes 4 s to drain.
    struct Slow: ServicePlugin {
        let seen: Counter
        var subscriptions: [String] { ["test.ping"] }
        var produces: [String] { [] }
        mutating func receive(_ message: BusMessage, output: inout ServiceOutput) throws {
            seen.add()
            Thread.sleep(forTimeInterval: 0.002)
        }
    }

    struct SlowCommandable: CommandableService {
        var slow: Slow
        var subscriptions: [String] { slow.subscriptions }
        var produces: [String] { [] }
        var commands: [ServiceCommand] { [ServiceCommand("slow.count", summary: "Messages seen.")] }
        mutating func receive(_ message: BusMessage, output: inout ServiceOutput) throws {
            try slow.receive(message, output: &output)
        }
        mutating func handle(command: String, arguments: JSONValue, output: inout ServiceOutput) throws -> JSONValue {
            .number(Double(slow.seen.value))
        }
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func add() { lock.withLock { count += 1 } }
        var value: Int { lock.withLock { count } }
    }

    func runner(_ instance: PluginInstance, bus: PluginRunnerCommandTests.MemoryBus) throws -> PluginRunner {
        let logger = Logger(label: "test.runner")
        let setup = PluginSetup(id: "slow", kind: .service, configDirectory: "",
                                endpoints: HubEndpoints(ingest: "", publish: "", control: ""), logger: logger)
        let plugin = ConfiguredPlugin(id: "slow", type: "slow", kind: .service, factory: CommandTestPlugins.counter,
                                      setup: setup, instance: instance, rebuild: { instance }, line: 1, column: 1)
        let status = StatusBoard(publisher: EventPublisher(producer: "locus", outlet: MemoryOutlet()), logger: logger)
        return try PluginRunner(plugin: plugin, bus: bus, status: status)
    }

    @Test(arguments: [false, true])
    func aServiceBehindOnItsMessagesStopsSoonAfterCancellation(commandable: Bool) async throws {
        let bus = PluginRunnerCommandTests.MemoryBus()
        let seen = Counter()
        let instance: PluginInstance = commandable ? .service(SlowCommandable(slow: Slow(seen: seen))) : .service(Slow(seen: seen))
        let runner = try runner(instance, bus: bus)
        for n in 0 ..< 2_000 { bus.ping(n) }
        let task = Task { try await runner.run() }
        for _ in 0 ..< 500 where seen.value < 20 { try await Task.sleep(nanoseconds: 10_000_000) }
        #expect(seen.value >= 20, "the service never started")
        let cancelled = ContinuousClock.now
        task.cancel()
        _ = try? await task.value
        let took = cancelled.duration(to: .now)
        #expect(took < .milliseconds(300), "took \(took) after cancellation, having seen \(seen.value) of 2000 messages")
        #expect(seen.value < 1_000)
    }
}

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
        /// Guards `count`.
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

    /// Issue 29 item 1: a service inside one long `receive` (restoring 120,000 polygon vertices)
    /// when SIGTERM came held the stop past ServiceLifecycle's cancellation budget, and the
    /// process died with "Fatal error: Cancellation took longer than allowed" (SIGILL). The
    /// runner abandons a plugin past its stop budget, reports it, and the daemon stops cleanly.
    @Test func aServiceStuckInReceiveIsAbandonedAndTheDaemonStillStops() async throws {
        let bench = CommandTestBench()
        let daemon = try await RunningDaemon.start("""
            sources:
              - {type: test-feeder, id: feed, bench: \(bench.id)}
            services:
              - {type: test-counter, id: counter, bench: \(bench.id)}
            """)
        bench.stuck = 8
        bench.ping(1...1)
        for _ in 0 ..< 500 where !bench.insideStuckReceive { try await Task.sleep(nanoseconds: 10_000_000) }
        #expect(bench.insideStuckReceive, "the service never received the ping")
        let asked = ContinuousClock.now
        await daemon.daemon.shutdown()
        // Without the abandonment this traps the whole test process (SIGILL) after ~1.9 s.
        try await daemon.task.value
        let took = asked.duration(to: .now)
        // The graceful period (1.5 s), then the runner's stop budget (1 s), not the 8 s receive.
        #expect(took < .seconds(5), "took \(took)")
        bench.unstick.signal()
        try? FileManager.default.removeItem(atPath: daemon.directory)
    }

    /// The runner alone: cancelled while its service is stuck, it returns after its budget and
    /// reports the plugin failed (abandoned).
    @Test func theRunnerReturnsAfterItsStopBudgetAndReportsTheAbandonment() async throws {
        struct Stuck: ServicePlugin {
            let inside: Counter
            let unstick: DispatchSemaphore
            var subscriptions: [String] { ["test.ping"] }
            var produces: [String] { [] }
            mutating func receive(_ message: BusMessage, output: inout ServiceOutput) throws {
                inside.add()
                _ = unstick.wait(timeout: .now() + 6)
            }
        }
        let bus = PluginRunnerCommandTests.MemoryBus()
        let inside = Counter()
        let unstick = DispatchSemaphore(value: 0)
        defer { unstick.signal() }
        let runner = try runner(.service(Stuck(inside: inside, unstick: unstick)), bus: bus)
        bus.ping(1)
        let task = Task { try await runner.run() }
        for _ in 0 ..< 500 where inside.value == 0 { try await Task.sleep(nanoseconds: 10_000_000) }
        #expect(inside.value == 1)
        let cancelled = ContinuousClock.now
        task.cancel()
        _ = try? await task.value
        let took = cancelled.duration(to: .now)
        #expect(took >= .milliseconds(900) && took < .milliseconds(2500), "took \(took)")
        let state = runner.status.snapshot.first { $0.plugin == "slow" }
        #expect(state?.state == .failed && state?.reason?.hasPrefix("abandoned") == true, "\(String(describing: state))")
    }
}

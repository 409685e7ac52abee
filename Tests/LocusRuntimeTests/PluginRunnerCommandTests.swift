import Foundation
import LocusBus
import LocusCore
import Logging
import Testing
@testable import LocusRuntime

/// `PluginRunner.perform` against an in-memory bus, for what a socket test cannot time: a
/// service that is not running yet, one that is stuck behind a message, one shutting down.
@Suite("Plugin runner commands")
struct PluginRunnerCommandTests {
    /// A bus whose one feed the test fills.
    /// Immutable: its `let`s, a `MemoryOutlet` and a `FeedQueue`, are thread-safe.
    final class MemoryBus: BusAttachment, @unchecked Sendable {
        let outlet = MemoryOutlet()
        let queue = FeedQueue(limit: 1000)

        struct Outlet: ClosableOutlet {
            let outlet: MemoryOutlet
            func send(topic: String, body: [UInt8]) { outlet.send(topic: topic, body: body) }
            func close() {}
        }

        struct Feed: BusFeed {
            let queue: FeedQueue
            func stop(drain: Bool) { queue.finish() }
        }

        func makeOutlet(for producer: String) throws -> any ClosableOutlet { Outlet(outlet: outlet) }
        func subscribe(_ prefixes: [String], for consumer: String) throws -> any BusFeed {
            Feed(queue: queue)
        }

        func ping(_ n: Int) {
            var one = [BusMessage(topic: "test.ping", envelope: Envelope(
                type: "test.ping", version: 1, producer: "feed", seq: UInt64(n), time: EventTime(seconds: Double(n)),
                payload: .typed(CommandTestPlugins.TestPing(n: n))))]
            _ = queue.push(&one)
        }
    }

    /// A service whose `receive` says it started, then blocks until the test opens the gate,
    /// then throws if `fails`.
    struct Stuck: CommandableService {
        let gate: DispatchSemaphore
        var entered = DispatchSemaphore(value: 0)
        var fails = false
        var names: [String] = []
        var subscriptions: [String] { ["test.ping"] }
        var produces: [String] { ["test.stuck"] }
        var commands: [ServiceCommand] { [ServiceCommand("stuck.add", summary: "Add name."), ServiceCommand("stuck.list", summary: "Names.")] }
        struct Failure: Error {}
        mutating func receive(_ message: BusMessage, output: inout ServiceOutput) throws {
            entered.signal()
            gate.wait()
            if fails { throw Failure() }
        }
        mutating func handle(command: String, arguments: JSONValue, output: inout ServiceOutput) throws -> JSONValue {
            if command == "stuck.add", let name = arguments["name"]?.stringValue { names.append(name) }
            return .array(names.map { .string($0) })
        }
    }

    func runner(_ service: some CommandableService, bus: MemoryBus) throws -> PluginRunner {
        let logger = Logger(label: "test.runner")
        let setup = PluginSetup(id: "fences", kind: .service, configDirectory: "",
                                endpoints: HubEndpoints(ingest: "", publish: "", control: ""), logger: logger)
        let plugin = ConfiguredPlugin(id: "fences", type: "stuck", kind: .service, factory: CommandTestPlugins.counter,
                                      setup: setup, instance: .service(service), rebuild: { .service(service) },
                                      line: 1, column: 1)
        let status = StatusBoard(publisher: EventPublisher(producer: "locus", outlet: MemoryOutlet()), logger: logger)
        return try PluginRunner(plugin: plugin, bus: bus, status: status)
    }

    /// Waits for `semaphore` on a thread of its own, not on the cooperative pool.
    func wait(for semaphore: DispatchSemaphore, seconds: Double = 10) async -> Bool {
        await withCheckedContinuation { c in
            Thread { c.resume(returning: semaphore.wait(timeout: .now() + seconds) == .success) }.start()
        }
    }

    func untilRunning(_ runner: PluginRunner, probe: String) async throws -> Bool {
        for _ in 0..<500 {
            if (try? await runner.perform(command: probe, arguments: .object([:]), timeout: 5)) != nil { return true }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        return false
    }

    func refusal(_ body: () async throws -> JSONValue) async -> String? {
        do {
            _ = try await body()
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func commandsBeforeTheServiceRunsOrAfterShutdownAreRefusedAtOnce() async throws {
        let bus = MemoryBus()
        let gate = DispatchSemaphore(value: 100)
        let runner = try runner(Stuck(gate: gate), bus: bus)
        #expect(runner.commands.map(\.name) == ["stuck.add", "stuck.list"])
        #expect(await refusal { try await runner.perform(command: "stuck.list", arguments: .object([:]), timeout: 5) }
                == "service 'fences' is starting; try again")

        let task = Task { await runner.supervise() }
        var answered = false
        for _ in 0..<500 where !answered {
            answered = (try? await runner.perform(command: "stuck.add", arguments: .object(["name": .string("a")]), timeout: 5)) != nil
            if !answered { try await Task.sleep(nanoseconds: 10_000_000) }
        }
        #expect(answered)

        runner.beginShutdown()
        #expect(await refusal { try await runner.perform(command: "stuck.list", arguments: .object([:]), timeout: 5) }
                == "service 'fences' is stopping: the daemon is shutting down")
        await task.value
        #expect(await refusal { try await runner.perform(command: "stuck.list", arguments: .object([:]), timeout: 5) }
                == "service 'fences' is stopping: the daemon is shutting down")
    }

    @Test func aCommandTheServiceDoesNotReachInTimeIsAnsweredAndNeverRun() async throws {
        let bus = MemoryBus()
        let gate = DispatchSemaphore(value: 0)
        let stuck = Stuck(gate: gate)
        let runner = try runner(stuck, bus: bus)
        let task = Task { await runner.supervise() }
        #expect(try await untilRunning(runner, probe: "stuck.list"))

        bus.ping(1)
        #expect(await wait(for: stuck.entered))  // the service blocks in receive until the gate opens
        let started = Date()
        let late = await refusal {
            try await runner.perform(command: "stuck.add", arguments: .object(["name": .string("late")]), timeout: 0.3)
        }
        #expect(late == "service 'fences' did not get to 'stuck.add' within 0.3 s (it is behind on its messages); nothing was changed, try again")
        #expect(Date().timeIntervalSince(started) < 3)
        gate.signal()
        // The timed-out add never ran; a later command is answered as usual.
        let names = try await runner.perform(command: "stuck.list", arguments: .object([:]), timeout: 5)
        #expect(names == .array([]))

        runner.beginShutdown()
        await task.value
    }

    @Test func commandsWaitingWhenTheServiceFailsAreRefusedAsRestarting() async throws {
        let bus = MemoryBus()
        let gate = DispatchSemaphore(value: 0)
        let stuck = Stuck(gate: gate, fails: true)
        let runner = try runner(stuck, bus: bus)
        let task = Task { await runner.supervise() }
        #expect(try await untilRunning(runner, probe: "stuck.list"))
        bus.ping(1)
        #expect(await wait(for: stuck.entered))
        // Queued behind the message the service is about to fail on.
        let waiting = Task {
            await refusal { try await runner.perform(command: "stuck.add", arguments: .object(["name": .string("x")]), timeout: 5) }
        }
        try await Task.sleep(nanoseconds: 200_000_000)
        gate.signal()
        #expect(await waiting.value == "service 'fences' is restarting; try again")
        runner.beginShutdown()
        await task.value
    }
}

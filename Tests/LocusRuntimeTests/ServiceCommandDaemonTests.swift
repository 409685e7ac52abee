import Foundation
import LocusCore
import Testing
@testable import LocusRuntime

/// Service commands through a real `Daemon`, its hub and its ZeroMQ control socket, with the
/// toy counter service of `CommandTestPlugins`.
@Suite("Service commands through the daemon", .serialized)
struct ServiceCommandDaemonTests {
    /// A feeder, one counter (`tally`, commands `counter.*`) and a recorder.
    static func oneCounter(_ bench: CommandTestBench) -> String {
        """
        sources:
          - type: test-feeder
            id: feed
            bench: \(bench.id)
        services:
          - type: test-counter
            id: tally
            bench: \(bench.id)
        sinks:
          - type: test-recorder
            id: rec
            bench: \(bench.id)
        """
    }

    @Test func addListRemoveRoundTripAndTheirEventsReachTheBus() async throws {
        let bench = CommandTestBench()
        let d = try await RunningDaemon.start(Self.oneCounter(bench))
        defer { Task { await d.stop() } }

        let added = try await d.result("counter.add", ["name": .string("home")])
        #expect(added["added"] == .string("home"))
        _ = try await d.result("counter.add", ["name": .string("work")])
        #expect(try await d.result("counter.list") == .array([.string("home"), .string("work")]))
        #expect(try await d.result("counter.remove", ["name": .string("home")]) == .object(["removed": .string("home")]))
        #expect(try await d.result("counter.list") == .array([.string("work")]))

        let published = try await d.waitUntil(timeout: 10) { bench.counterEvents(from: "tally").count == 3 }
        #expect(published)
        #expect(bench.counterEvents(from: "tally") == ["added home", "added work", "removed home"])
        // Published as the service, in its own sequence.
        let seqs = bench.recorded.filter { $0.envelope.producer == "tally" }.map(\.envelope.seq)
        #expect(seqs == [1, 2, 3])
        await d.stop()
    }

    /// A service's own counters (`ReportsCounters`) reach `status`: the service is a value the
    /// runner mutates, so the runner copies them after each batch and command.
    @Test func aServicesOwnCountersReachStatus() async throws {
        let bench = CommandTestBench()
        let d = try await RunningDaemon.start(Self.oneCounter(bench))
        defer { Task { await d.stop() } }
        func counters() async throws -> JSONValue? {
            guard case .array(let plugins)? = try await d.result("status")["plugins"] else { return nil }
            return plugins.first { $0["plugin"]?.stringValue == "tally" }?["counters"]
        }
        bench.ping(1...5)
        let seen = try await d.waitUntil(timeout: 10) { try await counters()?["seen"] == .number(5) }
        let after = try await counters()
        #expect(seen, "\(String(describing: after))")
        _ = try await d.result("counter.add", ["name": .string("home")])
        let names = try await counters()?["names"]
        #expect(names == .number(1))
        await d.stop()
    }

    @Test func refusedCommandsGetErrorRepliesAndChangeNothing() async throws {
        let bench = CommandTestBench()
        let d = try await RunningDaemon.start(Self.oneCounter(bench))
        defer { Task { await d.stop() } }
        _ = try await d.result("counter.add", ["name": .string("home")])

        #expect(try await d.error("counter.add", ["name": .string("x"), "colour": .string("red")])
                == "unknown argument 'colour'; counter.add takes name")
        #expect(try await d.error("counter.add", ["name": .string("home")]) == "'home' is already there")
        #expect(try await d.error("counter.remove", ["name": .string("nowhere")]) == "no name 'nowhere'")
        #expect(try await d.error("counter.add", [:]) == "add needs name=<text>")
        // An error that is not a ServiceCommandError: reported, and the instance keeps its state.
        #expect(try await d.error("counter.boom") == "service 'tally' failed on 'counter.boom': the toy exploded")

        #expect(try await d.result("counter.list") == .array([.string("home")]))
        let states = try await d.pluginStates()
        #expect(states["tally"] == "running")
        // Nothing but the one add reached the bus: not the event `boom` emitted before throwing.
        _ = try await d.result("counter.add", ["name": .string("last")])
        let published = try await d.waitUntil(timeout: 10) { bench.counterEvents(from: "tally").count >= 2 }
        #expect(published)
        #expect(bench.counterEvents(from: "tally") == ["added home", "added last"])
        await d.stop()
    }

    @Test func routesByServiceArgumentOrToTheOnlyServiceThatAnswers() async throws {
        let bench = CommandTestBench()
        let d = try await RunningDaemon.start("""
            sources:
              - type: test-feeder
                id: feed
                bench: \(bench.id)
            services:
              - type: test-counter
                id: left
                bench: \(bench.id)
              - type: test-counter
                id: right
                bench: \(bench.id)
              - type: test-counter
                id: solo
                prefix: solo
                bench: \(bench.id)
            """)
        defer { Task { await d.stop() } }

        #expect(try await d.error("counter.add", ["name": .string("a")])
                == "several services answer 'counter.add' (left, right); name one with service=<id>")
        _ = try await d.result("counter.add", ["name": .string("a"), "service": .string("left")])
        _ = try await d.result("counter.add", ["name": .string("b"), "service": .string("right")])
        // `service` is taken out before the service sees the arguments (it refuses unknown ones).
        #expect(try await d.result("counter.list", ["service": .string("left")]) == .array([.string("a")]))
        #expect(try await d.result("counter.list", ["service": .string("right")]) == .array([.string("b")]))

        #expect(try await d.error("counter.list", ["service": .string("feed")])
                == "service 'feed' does not answer 'counter.list'; services that do: left, right")
        #expect(try await d.error("counter.list", ["service": .string("solo")])
                == "service 'solo' does not answer 'counter.list'; services that do: left, right")
        #expect(try await d.error("counter.list", ["service": .string("nope")])
                == "there is no plugin 'nope'; services that answer 'counter.list': left, right")
        #expect(try await d.error("counter.list", ["service": .number(3)])
                == "service must be a service id (a string), e.g. service=left")

        // One service answers solo.*: no need to name it, naming it works too.
        _ = try await d.result("solo.add", ["name": .string("s")])
        #expect(try await d.result("solo.list", ["service": .string("solo")]) == .array([.string("s")]))
        #expect(try await d.result("counter.list", ["service": .string("left")]) == .array([.string("a")]))
        await d.stop()
    }

    @Test func helpListsServiceCommandsWithTheirSummaries() async throws {
        let bench = CommandTestBench()
        let d = try await RunningDaemon.start("""
            sources:
              - type: test-feeder
                id: feed
                bench: \(bench.id)
            services:
              - type: test-counter
                id: left
                bench: \(bench.id)
              - type: test-counter
                id: right
                bench: \(bench.id)
              - type: test-counter
                id: solo
                prefix: solo
                bench: \(bench.id)
            """)
        defer { Task { await d.stop() } }
        guard case .object(let help) = try await d.result("help") else {
            Issue.record("help is not an object")
            return
        }
        #expect(Set(help.keys) == ["help", "status", "plugins", "metrics",
                                   "counter.add", "counter.remove", "counter.list", "counter.boom",
                                   "solo.add", "solo.remove", "solo.list", "solo.boom"])
        #expect(help["solo.add"] == .string("Add name=<text>."))
        #expect(help["counter.add"] == .string("Add name=<text>. (services: left, right; pass service=<id>)"))
        #expect(help["status"] == .string("Hub counters and each plugin's latest state."))
        await d.stop()
    }

    /// The reply of `counter.add` carries how many pings the service had received when it ran
    /// the command; exactly that many `seen` events precede its `added` event on the bus.
    @Test func commandEventsFollowTheEventsOfMessagesReceivedBeforeThem() async throws {
        let bench = CommandTestBench()
        let d = try await RunningDaemon.start(Self.oneCounter(bench))
        defer { Task { await d.stop() } }

        var seenAtCommand: [String: Int] = [:]
        var next = 1
        for round in 0..<6 {
            bench.ping(next...(next + 29))
            next += 30
            if round == 2 {
                // Once, wait until every ping so far was handled: the command must follow all of them.
                let caughtUp = try await d.waitUntil(timeout: 10) {
                    bench.counterEvents(from: "tally").filter { $0.hasPrefix("seen ") }.count == next - 1
                }
                #expect(caughtUp)
            }
            let reply = try await d.result("counter.add", ["name": .string("n\(round)")])
            seenAtCommand["n\(round)"] = reply["seen"]?.doubleValue.map { Int($0) }
        }
        #expect(seenAtCommand["n2"] == 90)
        let total = next - 1 + 6
        let all = try await d.waitUntil(timeout: 15) { bench.counterEvents(from: "tally").count == total }
        #expect(all, "got \(bench.counterEvents(from: "tally").count) of \(total) events")

        let events = bench.counterEvents(from: "tally")
        // Pings are seen in order, and each command's event sits after exactly the pings it saw.
        #expect(events.filter { $0.hasPrefix("seen ") } == (1..<next).map { "seen \($0)" })
        for (name, seen) in seenAtCommand {
            let position = events.firstIndex(of: "added \(name)")
            #expect(position.map { events[..<$0].filter { $0.hasPrefix("seen ") }.count } == seen, "\(name)")
        }
        // Commands keep their order too.
        #expect(events.filter { $0.hasPrefix("added ") } == (0..<6).map { "added n\($0)" })
        await d.stop()
    }

    @Test func commandsDuringARestartAreRefusedAndAfterItGoToTheNewInstance() async throws {
        let bench = CommandTestBench()
        let d = try await RunningDaemon.start(Self.oneCounter(bench))
        defer { Task { await d.stop() } }
        _ = try await d.result("counter.add", ["name": .string("old")])

        bench.crashing = true
        var refusal: String?
        var n = 1
        // Each ping crashes whichever instance is running; the backoff grows 0.5 s, 1 s, 2 s…
        let refused = try await d.waitUntil(timeout: 20) {
            bench.ping(n...n)
            n += 1
            let reply = try await d.request("counter.list")
            if reply["ok"] == .bool(false) { refusal = reply["error"]?.stringValue }
            return refusal != nil
        }
        #expect(refused)
        #expect(refusal == "service 'tally' is restarting; try again")

        bench.crashing = false
        let back = try await d.waitUntil(timeout: 20) {
            try await d.request("counter.list")["ok"] == .bool(true)
        }
        #expect(back)
        // A fresh instance: the old state is gone, and it answers.
        #expect(try await d.result("counter.list") == .array([]))
        _ = try await d.result("counter.add", ["name": .string("new")])
        #expect(try await d.result("counter.list") == .array([.string("new")]))
        #expect(try await d.pluginStates()["tally"] == "running")
        await d.stop()
    }
}

import Foundation
import Testing

/// Issue 50 item 1, "a second run that silently does nothing": services keep their state, so a
/// second `locus run` of a config with a replay source (no `loop`) skipped every fix as already
/// processed and published no region event, with no line in the log; a second config naming
/// its service `fences` too shared the first one's state through the default state directory;
/// a changed fence said nothing.
///
/// Each run replays a real recording (`Fixtures/region-restart`) at `speed: max` through two
/// region services into a file sink, and stops once the recording has finished and the sink's
/// file has settled: a run takes a second or two.
@Suite(.serialized) struct StatePerConfigTests {
    static let fixture = E2E.fixture("region-restart")

    /// `fences`: the fixture's circles from its GeoJSON file; `inline`: one circle in the
    /// config, of `radius` metres.
    static func config(radius: Int = 144) -> String {
        """
        services:
          - type: region
            id: fences
            file: \(fixture)/regions.geojson
          - type: region
            id: inline
            regions:
              - {id: r012, center: {lat: 51.312721, lon: 12.412703}, radius: \(radius)}
        sources:
          - {type: replay, id: walk, file: \(fixture)/input.jsonl, speed: max}
        sinks:
          - {type: file, id: out, path: events.jsonl, topics: ["region."]}

        """
    }

    /// The region transitions in a file the sink wrote, as comparable keys, each service's in
    /// its order (the two services' events interleave differently from run to run).
    static func transitions(_ file: String, after offset: Int = 0) -> [String] {
        let data = FileManager.default.contents(atPath: file) ?? Data()
        let text = String(decoding: data.dropFirst(offset), as: UTF8.self)
        let all = text.split(separator: "\n").map { RecordedMessage.read(line: String($0)) }.filter { ["region.enter", "region.exit", "region.dwell"].contains($0.type) }.map {
            "\($0.producer) \($0.topic) \($0.payload["state"] ?? "") since=\($0.payload["since"] ?? "") fix=\($0.payload["fix_time"] ?? "-")"
        }
        return all.filter { $0.hasPrefix("fences ") } + all.filter { !$0.hasPrefix("fences ") }
    }

    /// Runs `locus run <options> <dir>/config.yaml` until the replay has finished and the sink's
    /// file has settled, runs `whileRunning` (the daemon still up), then stops it. Returns its
    /// log and the transitions it added to `<dir>/events.jsonl`.
    static func run(_ dir: String, options: [String] = [], environment: [String: String],
                    whileRunning: () async throws -> Void = {}) async throws -> (log: String, transitions: [String]) {
        let file = dir + "/events.jsonl"
        let before = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        let daemon = try ChildProcess(E2E.binary, ["run"] + options + [dir + "/config.yaml"], directory: dir, environment: environment)
        let finished = await waitUntil(timeout: 60) { daemon.stderr.contains("recording finished") || !daemon.process.isRunning }
        #expect(finished && daemon.process.isRunning, "the replay did not finish: \(daemon.stderr)")
        _ = await settled(timeout: 20, quiet: 0.7) { transitions(file).count }
        try await whileRunning()
        let stop = await daemon.terminate(timeout: 10)
        #expect(stop.status == 0, "locus run: \(daemon.stderr)")
        return (daemon.stderr, transitions(file, after: before))
    }

    /// The log lines that contain every one of `parts`.
    static func lines(_ log: String, containing parts: String...) -> [Substring] {
        log.split(separator: "\n").filter { line in parts.allSatisfy { line.contains($0) } }
    }

    @Test func aSecondRunSaysItResumedAndFreshGivesTheFirstRunsEventsAgain() async throws {
        let work = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: work) }
        try Self.config().write(toFile: work + "/config.yaml", atomically: true, encoding: .utf8)
        let environment = ["LOCUS_RUNTIME_DIR": work, "LOCUS_STATE_DIR": work + "/state"]

        let first = try await Self.run(work, environment: environment)
        #expect(first.transitions.count >= 10, "too few transitions to compare: \(first.log)")
        #expect(Self.lines(first.log, containing: "resuming").isEmpty, "a first run resumes nothing: \(first.log)")

        // The same config again: nothing new to do, and the log says so and how to start over.
        var refusal: (status: Int32, stdout: String, stderr: String)?
        let second = try await Self.run(work, environment: environment) {
            // While that daemon runs, its state is not reset under it.
            refusal = try await runToEnd(E2E.binary, ["state", "reset", "--config", work + "/config.yaml"], directory: work,
                                         environment: environment)
        }
        #expect(second.transitions.isEmpty, "the second run handled the recording again: \(second.transitions.prefix(3))")
        let resumed = Self.lines(second.log, containing: "resuming", "fences", work + "/state/services/fences.sqlite")
        #expect(resumed.count == 1, "no (or more than one) line says the service resumed, with where its state is: \(second.log)")
        #expect(resumed.first?.contains("inputs_handled=") == true, "\(resumed)")
        let handled = Self.lines(second.log, containing: "already handled", "walk", "--fresh")
        #expect(!handled.isEmpty, "nothing says the recording was handled before and how to start over: \(second.log)")
        #expect(refusal?.status == 1, "state reset while the daemon runs: \(String(describing: refusal))")
        #expect(refusal?.stderr.contains("is running") == true, "\(String(describing: refusal))")

        // --fresh: the services start over, and publish what the first run published.
        let fresh = try await Self.run(work, options: ["--fresh"], environment: environment)
        #expect(fresh.transitions == first.transitions, "--fresh gave other events: \(fresh.log)")
        #expect(Self.lines(fresh.log, containing: "resuming", "fences").isEmpty, "\(fresh.log)")
        #expect(!Self.lines(fresh.log, containing: "--fresh", "discarded").isEmpty, "--fresh says nothing of what it discarded: \(fresh.log)")

        // `locus state reset` (the daemon stopped) does the same for the next run.
        let reset = try await runToEnd(E2E.binary, ["state", "reset", "fences", "--config", work + "/config.yaml"], directory: work,
                                       environment: environment)
        #expect(reset.status == 0 && reset.stdout.contains("fences"), "\(reset)")
        let afterReset = try await Self.run(work, environment: environment)
        #expect(afterReset.transitions.count > 0 && afterReset.transitions.allSatisfy { $0.hasPrefix("fences ") },
                "after `state reset fences` the fences service handles the recording again: \(afterReset.log)")
        #expect(!Self.lines(afterReset.log, containing: "resuming", "inline").isEmpty, "only fences was reset: \(afterReset.log)")

        // Where a user finds it.
        let runHelp = try await runToEnd(E2E.binary, ["run", "--help"], directory: work)
        #expect(runHelp.stdout.contains("--fresh"), "\(runHelp.stdout)")
        let help = try await runToEnd(E2E.binary, ["--help"], directory: work)
        #expect(help.stdout.contains("\n  state "), "\(help.stdout)")
    }

    @Test func twoConfigsWithTheSameServiceIDsDoNotShareState() async throws {
        let work = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: work) }
        // The default state directory (no LOCUS_STATE_DIR, STATE_DIRECTORY or hub.state_directory).
        let environment = ["LOCUS_RUNTIME_DIR": work, "LOCUS_STATE_DIR": "", "STATE_DIRECTORY": "", "XDG_STATE_HOME": "",
                           "HOME": work + "/home"]
        var results: [[String]] = []
        var states: [String] = []
        for name in ["a", "b"] {
            let dir = work + "/" + name
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            try Self.config().write(toFile: dir + "/config.yaml", atomically: true, encoding: .utf8)
            let check = try await runToEnd(E2E.binary, ["check", dir + "/config.yaml"], directory: dir, environment: environment)
            #expect(check.status == 0, "\(check)")
            states += check.stdout.split(separator: "\n").filter { $0.hasPrefix("state: ") }.map(String.init)
            let run = try await Self.run(dir, environment: environment)
            #expect(Self.lines(run.log, containing: "resuming").isEmpty, "config \(name) resumed another config's state: \(run.log)")
            results.append(run.transitions)
        }
        #expect(results[0].count >= 10 && results[1] == results[0], "b: \(results[1].count) transitions, a: \(results[0].count)")
        #expect(states.count == 2 && states[0] != states[1] && states.allSatisfy { $0.hasPrefix("state: \(work)/home/.local/state/locus/") },
                "locus check names each config's own state directory: \(states)")
    }

    @Test func aChangedFenceSaysWhatBecomesOfTheSavedState() async throws {
        let work = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: work) }
        let environment = ["LOCUS_RUNTIME_DIR": work, "LOCUS_STATE_DIR": work + "/state"]
        try Self.config().write(toFile: work + "/config.yaml", atomically: true, encoding: .utf8)
        let first = try await Self.run(work, environment: environment)
        #expect(!first.transitions.isEmpty)

        try Self.config(radius: 40).write(toFile: work + "/config.yaml", atomically: true, encoding: .utf8)
        let changed = try await Self.run(work, environment: environment)
        let said = Self.lines(changed.log, containing: "configuration of inline changed since its state was saved")
        #expect(said.count == 1, "no (or more than one) line says the configuration changed: \(changed.log)")
        #expect(said.first?.contains("r012") == true && said.first?.contains("--fresh") == true, "\(said)")
        // The unchanged service says nothing of the kind.
        #expect(Self.lines(changed.log, containing: "configuration of fences changed").isEmpty, "\(changed.log)")
    }
}

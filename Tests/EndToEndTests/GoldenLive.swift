import Foundation
import LocusTestKit
import Testing

/// Runs a golden case through the real daemon: `locus run` with a `replay` source at a given
/// speed, the case's services, and a `file` sink, on private ipc sockets.
enum GoldenLive {
    static let sourceId = "golden-replay"

    /// Seconds of recorded time between the first and last message of a recording.
    static func span(of path: String) -> Double? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        let times = GoldenComparison.lines(text).compactMap { line -> Date? in
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let e = o["envelope"] as? [String: Any], let t = e["time"] as? String else { return nil }
            return iso.date(from: t)
        }
        guard let first = times.min(), let last = times.max() else { return nil }
        return last.timeIntervalSince(first)
    }

    // Only read after its initialisation; ISO8601DateFormatter is documented as thread-safe.
    nonisolated(unsafe) static let iso: ISO8601DateFormatter = {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f
    }()

    /// The service events the daemon published (recording lines), in arrival order.
    static func run(caseDirectory dir: String, speed: Double, timeout: Double) async throws -> [String] {
        let work = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: work) }
        let events = work + "/events.jsonl"
        let services = try String(contentsOfFile: dir + "/config.yaml", encoding: .utf8)
        let config = services + """

        # Added by the golden-file test: the recording as a live source, and a file sink.
        sources:
          - type: replay
            id: \(sourceId)
            file: \(dir)/input.jsonl
            speed: \(speed)
            tick_interval: 1
        sinks:
          - type: file
            id: golden-out
            path: \(events)
            topics: [""]

        """
        try config.write(toFile: work + "/config.yaml", atomically: true, encoding: .utf8)
        let daemon = try ChildProcess(E2E.binary, ["run", work + "/config.yaml"], directory: work,
                                      environment: ["LOCUS_RUNTIME_DIR": work, "LOCUS_STATE_DIR": work, "LOCUS_LOG_LEVEL": "warning"])
        defer { daemon.kill9() }
        let finished = await waitUntil(timeout: timeout) {
            RecordedMessage.read(events).contains {
                $0.topic == "status.\(sourceId)" && $0.payload["state"] as? String == "stopped"
            } || !daemon.process.isRunning
        }
        #expect(finished, "the replay did not finish within \(timeout) s: \(daemon.stderr)")
        // The services may still be handling the last messages: let them finish, then stop.
        try await Task.sleep(nanoseconds: 1_000_000_000)
        let stop = await daemon.terminate(timeout: 10)
        #expect(stop.status == 0, "locus run exited with \(String(describing: stop.status)): \(daemon.stderr)")
        let text = (try? String(contentsOfFile: events, encoding: .utf8)) ?? ""
        return GoldenComparison.lines(text).filter { line in
            let m = RecordedMessage.read(line: line)
            return !(m.topic.hasPrefix("obs.") || m.topic.hasPrefix("clock.") || m.topic.hasPrefix("status."))
        }
    }

    /// Lines grouped by envelope producer, each group in file order.
    static func groupByProducer(_ lines: [String]) -> [String: [String]] {
        var groups: [String: [String]] = [:]
        for line in lines { groups[RecordedMessage.read(line: line).producer, default: []].append(line) }
        return groups
    }
}

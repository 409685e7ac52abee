import Foundation

/// CPU time used so far by each thread of this process, from /proc (Linux), by thread name.
/// Throughput on a shared machine is noisy; CPU time per message of each stage is steadier.
struct ThreadCPU {
    var seconds: [String: Double] = [:]

    static func snapshot() -> ThreadCPU {
        var result = ThreadCPU()
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        for tid in tasks {
            guard let name = try? String(contentsOfFile: "/proc/self/task/\(tid)/comm", encoding: .utf8),
                  let stat = try? String(contentsOfFile: "/proc/self/task/\(tid)/schedstat", encoding: .utf8),
                  let ns = stat.split(separator: " ").first.flatMap({ Double($0) }) else { continue }
            result.seconds[name.trimmingCharacters(in: .whitespacesAndNewlines), default: 0] += ns / 1e9
        }
        return result
    }

    /// "locus-hub 0.61 µs, …" for the busiest threads.
    func perMessage(_ n: Int) -> String {
        seconds.sorted { $0.value > $1.value }.prefix(5)
            .map { String(format: "%@ %.2f µs", $0.key, $0.value / Double(n) * 1e6) }
            .joined(separator: ", ")
    }
}

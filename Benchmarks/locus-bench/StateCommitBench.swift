import Foundation
import LocusCore
import LocusStore

/// `state-commit N DEVICES`: the runtime's state store alone (`ServiceStateStore.commit`), as a
/// per-device region service on a fleet server uses it: N record writes of about 230 bytes
/// (a device's last fix, as `RegionDeviceState.Times` is written) over DEVICES devices, 2,000
/// per transaction (a batch of a busy feed), plus the batch's input position and an event.
enum StateCommitBench {
    static func run(count n: Int, devices: Int, directory: String) throws {
        let dir = directory + "/state-commit-bench-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try ServiceStateStore(path: dir + "/bench.sqlite", kind: "service")
        let batch = 2_000
        let c0 = ThreadCPU.snapshot()
        let t0 = now()
        var written = 0
        var b = 0
        while written < n {
            var changes = StateChanges()
            for i in 0..<min(batch, n - written) {
                let d = (written + i) % devices
                let ms = 1_764_000_000_000 + Int64(written + i) * 1000
                changes.put("state", key: "device/owntracks-bench-d\(d)", json: """
                {"first_fix_time":1764000000000,"last_fix":{"h_accuracy":5,"lat":\(-60 + Double(d % 100) + 0.000123),"lon":\(-170 + Double(d / 100) * 3 + 0.000456),"source":"phones","time":\(ms)},"last_fix_time":\(ms)}
                """)
            }
            changes.put("position_log", key: "\(b)", json: "{\"phones\":\"\(written)\"}")
            changes.append(envelopes: [("region.enter.fences", Array("{\"type\":\"region.enter\"}".utf8))], time: EventTime(milliseconds: 0))
            _ = try store.commit(changes)
            written += min(batch, n - written)
            b += 1
        }
        let t1 = now()
        let c1 = ThreadCPU.snapshot()
        let cpu = c1.seconds.values.reduce(0, +) - c0.seconds.values.reduce(0, +)
        print("state commit: \(rate(n, t1 - t0)) records/s wall, \(String(format: "%.2f", cpu / Double(n) * 1e6)) µs CPU per record (N=\(n), \(devices) devices, \(batch) per transaction)")
    }
}

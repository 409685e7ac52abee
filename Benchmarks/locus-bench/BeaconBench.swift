import Foundation
import LocusBeaconPlugin
import LocusCore

/// The beacon service alone, in this process: `tools/beacon_sequence.py bench DIR` writes
/// `bench-conditions.json` (the conditions) and `bench-input.jsonl` (the advertisements); the
/// recording is decoded and the clock ticks inserted first (`RecordingTimeline`, as `locus
/// replay` does), then only `BeaconService.receive` is timed, on this thread's CPU clock.
enum BeaconBench {
    static func run(directory: String) throws {
        let definitions = try JSONValue.decode(Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/bench-conditions.json"))))
        guard case .array(let list) = definitions else { throw BenchError.usage }
        let conditions = try list.map { try BeaconCondition(definition: $0, origin: .config) }
        var timeline = RecordingTimeline(reader: try LineReader(path: directory + "/bench-input.jsonl"), topics: ["obs."],
                                         tickInterval: 1, registry: .core)
        var messages: [BusMessage] = []
        var ads = 0
        // For comparison: reading and decoding the recording (what a subscriber's envelope
        // decoding costs end to end, plus reading lines from the file).
        let decodeStart = threadCPU()
        while let item = timeline.next() {
            switch item {
            case .message(let topic, let envelope):
                messages.append(BusMessage(topic: topic, envelope: envelope))
                ads += 1
            case .tick(let t):
                messages.append(BusMessage(topic: "clock.tick", envelope: Envelope(producer: "clock", seq: 1, time: t,
                                                                                     payload: ClockTick(basis: .recorded, interval: 1))))
            case .skipped:
                continue
            }
        }
        let decodeCPU = threadCPU() - decodeStart
        var service = try BeaconService(id: "beacons", configuration: BeaconConfiguration.with { $0.conditions = conditions; $0.persist = false })
        var counts: [String: Int] = [:]
        let start = threadCPU()
        for m in messages {
            var output = ServiceOutput()
            try service.receive(m, output: &output)
            for e in output.events { counts[type(of: e.payload).eventType, default: 0] += 1 }
        }
        let cpu = threadCPU() - start
        let events = counts.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        print(String(format: "beacon-service conditions=%d advertisements=%d messages=%d cpu=%.3fs cpu_us_per_ad=%.3f read_decode_us_per_ad=%.3f ",
                     conditions.count, ads, messages.count, cpu, cpu / Double(ads) * 1e6, decodeCPU / Double(ads) * 1e6) + events)
    }

    static func threadCPU() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

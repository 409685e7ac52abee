import Foundation
import LocusCore
import LocusStandardPlugin
import LocusTestKit
import Testing

/// The standard service writes its state itself (`JSONWritableState`, for speed): it must write
/// what `JSONEncoder` makes of the `Codable` form, byte for byte, so that stored states and
/// their decoding do not change. Checked after every message of every golden recording with
/// fixes, under configurations that reach every part of the state (several sources, refused
/// fixes, a paused service, sources reported down).
@Suite struct StandardStateWritingTests {
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Tests/Golden")

    static let configurations: [String] = [
        "{}",
        #"{"distance_filter":25,"max_interval":300,"source_timeout":120,"unavailable_after":180,"pause_when_stationary":true}"#,
        #"{"sources":["gps0","gps1","phone"],"max_horizontal_accuracy":4,"source_timeout":5,"unavailable_after":3,"stationary_time":10}"#,
    ]

    /// The messages of a golden case's recording, with a clock tick every second as `locus
    /// replay` gives them, and a status message reporting the first source down (with a reason
    /// that needs escaping) a third of the way in, and up again at two thirds.
    static func messages(of name: String) throws -> [BusMessage] {
        var timeline = RecordingTimeline(reader: try LineReader(path: golden.appendingPathComponent(name + "/input.jsonl").path),
                                         topics: ["obs.", "status."], tickInterval: 1, registry: .core)
        var messages: [BusMessage] = []
        var seq: UInt64 = 0
        while let item = timeline.next() {
            seq += 1
            switch item {
            case .message(let topic, let envelope): messages.append(BusMessage(topic: topic, envelope: envelope))
            case .tick(let time):
                messages.append(BusMessage(topic: "clock.tick", envelope: Envelope(producer: "clock", seq: seq, time: time,
                                                                                    payload: ClockTick(basis: .recorded, interval: 1))))
            case .skipped(let line, let reason): Issue.record("\(name) line \(line): \(reason)")
            }
        }
        guard let first = messages.lazy.compactMap({ $0.payload(Fix.self)?.source }).first else { return messages }
        for (at, state) in [(messages.count / 3, PluginStatus.State.disconnected), (2 * messages.count / 3, .connected)] {
            let status = PluginStatus(plugin: first, kind: "source", pluginType: "nmea-serial", state: state,
                                      reason: state == .connected ? nil : "cable \"pulled\"\n\tat the mast \\ ü")
            messages.insert(BusMessage(topic: "status.\(first)", envelope: Envelope(producer: "locus", seq: 1, time: messages[at].time, payload: status)), at: at)
        }
        return messages
    }

    static let cases = ["standard-walk", "standard-failover", "location-services-short", "visits-cerknica", "visits-dg100-gaps",
                        "significant-change-hike", "region-jitter-ais", "speed-alert"]

    @Test(arguments: cases)
    func writesWhatJSONEncoderWrites(_ name: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let messages = try Self.messages(of: name)
        #expect(messages.count > 100)
        var compared = 0
        var distinct = Set<[UInt8]>()
        for json in Self.configurations {
            var service = StandardService(id: "here", configuration: try decodeConfiguration(StandardConfiguration.self, json))
            for message in messages {
                var output = ServiceOutput()
                service.receive(message, output: &output)
                let written = try service.encodedState()
                let encoded = Array(try encoder.encode(service.state))
                guard written == encoded else {
                    Issue.record("\(name) with \(json), after \(message.topic) at \(message.time): written\n\(String(decoding: written, as: UTF8.self))\nJSONEncoder\n\(String(decoding: encoded, as: UTF8.self))")
                    return
                }
                #expect(try ServiceStateCoding.decode(StandardService.State.self, from: written) == service.state)
                compared += 1
                distinct.insert(written)
            }
        }
        // The states compared are many and varied, not one state over and over.
        #expect(compared == 3 * messages.count && distinct.count > messages.count / 2)
    }

    /// The parts of the state the recordings reach only through the configurations above.
    @Test func theRecordingsReachEveryPartOfTheState() throws {
        var seen = Set<String>()
        for name in Self.cases {
            let messages = try Self.messages(of: name)
            for json in Self.configurations {
                var service = StandardService(id: "here", configuration: try decodeConfiguration(StandardConfiguration.self, json))
                for message in messages {
                    var output = ServiceOutput()
                    service.receive(message, output: &output)
                    let text = String(decoding: try service.encodedState(), as: UTF8.self)
                    for part in ["\"lastRefused\"", "\"lastUsable\"", "\"pausedAt\"", "\"anchor\"", "\"current\"", "\"lastPublished\"",
                                 "\"isStationary\":true", "\"unavailable\":true", "\"accuracyLimited\":true", "\"disconnected\":[\"",
                                 "\"reportedDown\":{\"", "\"accuracy\":"] where text.contains(part) {
                        seen.insert(part)
                    }
                }
            }
        }
        #expect(seen.count == 12, "not reached: \(["\"lastRefused\"", "\"pausedAt\"", "\"isStationary\":true", "\"unavailable\":true", "\"accuracyLimited\":true", "\"disconnected\":[\"", "\"reportedDown\":{\"", "\"accuracy\":"].filter { !seen.contains($0) })")
    }
}

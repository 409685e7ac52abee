import Foundation
import Testing

/// `locus decode` on BLE input: hex lines of AD payloads and HCI events (`Fixtures/ble-decode`,
/// payloads from the third-party test vectors, see the README there), and Locus recordings
/// of `obs.ble`.
@Suite struct BLEDecodeCommandTests {
    static let input = E2E.fixture("ble-decode/ads.txt")

    @Test func hexLinesBecomeObsBLEMessages() async throws {
        let r = try await runToEnd(E2E.binary, ["decode", Self.input, "--stats"], directory: E2E.repoRoot)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        let messages = lines.map { RecordedMessage.read(line: $0) }
        // 8 payload lines, one bad ("zz"): 7 observations.
        #expect(messages.count == 7)
        #expect(messages.allSatisfy { $0.topic == "obs.ble.hci0" && $0.type == "obs.ble" && $0.producer == "hci0" })
        #expect(messages.map(\.seq) == Array(1...7))

        let iBeacon = messages[0].payload
        #expect(iBeacon["address"] as? String == "C0:FF:EE:00:11:22" && iBeacon["address_type"] as? String == "random")
        #expect(iBeacon["rssi"] as? Int == -67 && iBeacon["name"] as? String == "BlueCharm_169685")
        let b0 = try #require(iBeacon["beacon"] as? [String: Any])
        #expect(b0["format"] as? String == "ibeacon" && b0["uuid"] as? String == "426c7565-4368-6172-6d42-6561636f6e73")
        #expect(b0["major"] as? Int == 3838 && b0["minor"] as? Int == 4949 && b0["measured_power"] as? Int == -59)

        // H4 event from a micro:bit: address reversed from the wire, Eddystone power at 1 m.
        let url = messages[1].payload
        #expect(url["address"] as? String == "F1:55:90:65:29:DC" && url["rssi"] as? Int == -75)
        let b1 = try #require(url["beacon"] as? [String: Any])
        #expect(b1["url"] as? String == "https://makecode.com/#about" && b1["measured_power"] as? Int == -10 - 41)
        // No H4 byte; no time of its own, so the previous line's.
        #expect(messages[2].payload["name"] as? String == "BBC micro:bit [tegip]")
        // The loose H4 packet: TLM telemetry on the wire.
        let tlm = try #require(messages[3].payload["beacon"] as? [String: Any])
        #expect(tlm["battery_mv"] as? Int == 2840 && tlm["temperature"] as? Double == 19 && tlm["advertising_count"] as? Int == 5223)
        #expect(tlm["uptime"] as? Double == 1094.8)
        // Extended report.
        let ext = messages[4].payload
        #expect(ext["address"] as? String == "11:22:33:44:55:66" && ext["rssi"] as? Int == -59 && ext["tx_power"] == nil)
        #expect((ext["beacon"] as? [String: Any])?["namespace"] as? String == "12345678901234678901")
        // Encrypted TLM from an AD line without address.
        #expect((messages[5].payload["beacon"] as? [String: Any])?["encrypted"] as? Bool == true)
        #expect(messages[5].payload["address"] as? String == "00:00:00:00:00:00")
        // PDU + zero padding + scan response.
        let scan = messages[6].payload
        #expect(scan["service_uuids"] as? [String] == ["cba20d00-224d-11e6-9fb8-0002a5d5c51b"])
        #expect(scan["address_type"] as? String == "public")

        #expect(lines.map(Self.time) == ["2024-05-17T08:00:00.000Z", "2024-05-17T08:00:01.500Z", "2024-05-17T08:00:01.500Z",
                                         "2024-05-17T08:00:02.250Z", "2024-05-17T08:00:03.000Z", "2024-05-17T08:00:05.000Z",
                                         "2024-05-17T08:00:06.000Z"])
        #expect(r.stderr.contains("line 7: the payload is not hex"))
        #expect(r.stderr.contains("format=ble") && r.stderr.contains("bad_lines=1") && r.stderr.contains("hci_quirks=1"))
    }

    @Test func theOutputIsGolden() async throws {
        let r = try await runToEnd(E2E.binary, ["decode", Self.input, "--source", "scanner-1"], directory: E2E.repoRoot)
        #expect(r.status == 0)
        let expected = try String(contentsOfFile: E2E.fixture("ble-decode/expected.jsonl"), encoding: .utf8)
        #expect(r.stdout == expected)
    }

    @Test func aRecordingOfObsBLEPassesThrough() async throws {
        let work = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: work) }
        let first = try await runToEnd(E2E.binary, ["decode", Self.input], directory: work)
        try first.stdout.write(toFile: work + "/rec.jsonl", atomically: true, encoding: .utf8)
        let again = try await runToEnd(E2E.binary, ["decode", work + "/rec.jsonl", "--stats"], directory: work)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("format=locus"))
        #expect(again.stdout == first.stdout)
    }

    @Test func forcedFormatAndBadInput() async throws {
        let work = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: work) }
        // All-digit AD that detection could take for something else: --format ble says what it is.
        try "020a04\n".write(toFile: work + "/tx.txt", atomically: true, encoding: .utf8)
        let r = try await runToEnd(E2E.binary, ["decode", work + "/tx.txt", "--format", "ble"], directory: work)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(RecordedMessage.read(line: r.stdout.trimmingCharacters(in: .newlines)).payload["tx_power"] as? Int == 4)
        // Garbage: a line that is not one is refused; a lone byte is an AD payload whose only
        // structure runs past the end (counted, nothing decoded); "04" is a Unix time.
        try "hello world\n3e\n04 3e\n".write(toFile: work + "/bad.txt", atomically: true, encoding: .utf8)
        let bad = try await runToEnd(E2E.binary, ["decode", work + "/bad.txt", "--format", "ble", "--stats"], directory: work)
        #expect(bad.status == 0)
        let out = bad.stdout.split(separator: "\n").map { RecordedMessage.read(line: String($0)) }
        #expect(out.count == 2)
        #expect(out.allSatisfy { Set($0.payload.keys) == ["source", "address", "address_type", "rssi"] })
        #expect(bad.stderr.contains("line 1: 'hello' is not an ISO-8601 time or Unix seconds"))
        #expect(bad.stderr.contains("bad_lines=1") && bad.stderr.contains("truncated_structures=2"))
    }

    @Test func replayRefusesBLELines() async throws {
        let r = try await runToEnd(E2E.binary, ["replay", Self.input, "--format", "ble"], directory: E2E.repoRoot)
        #expect(r.status == 2)
        #expect(r.stderr.contains("locus replay does not read BLE lines"))
    }

    static func time(_ line: String) -> String {
        guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let e = o["envelope"] as? [String: Any] else { return "" }
        return e["time"] as? String ?? ""
    }
}

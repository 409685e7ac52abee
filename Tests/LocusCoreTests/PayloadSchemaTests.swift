import Foundation
import LocusCore
import Testing

/// The schema check the hub applies to outside publishers' payloads (`PayloadSchema`).
struct PayloadSchemaTests {
    static func json(_ s: String) throws -> JSONValue { try JSONValue.read(Array(s.utf8)) }

    @Test func everyLocusSchemaCompiles() {
        let all = PayloadSchemas.compileAll()
        #expect(all.count >= 24)
        for (type, result) in all {
            if case .failure(let e) = result { Issue.record("\(type): \(e)") }
        }
        #expect(PayloadSchemas.locus.eventTypes.count == all.count)
    }

    @Test func patternsMatchAsJSONSchemaSays() throws {
        let id = try PayloadPattern("^[a-z0-9_-]{1,64}$")
        #expect(id.matches("gps0") && id.matches("a-b_c"))
        #expect(!id.matches("") && !id.matches("GPS") && !id.matches(String(repeating: "a", count: 65)) && !id.matches("gps0\n"))
        let hex = try PayloadPattern("^([0-9a-f]{2})+$")
        #expect(hex.matches("00ff") && !hex.matches("0ff") && !hex.matches(""))
        // Linear time: a long string that almost matches is not a backtracking bomb.
        #expect(hex.matches(String(repeating: "ab", count: 200_000)))
        #expect(!hex.matches(String(repeating: "ab", count: 200_000) + "x"))
        let either = try PayloadPattern("^([0-9a-f]{4}|[0-9a-f]{8})$")
        #expect(either.matches("abcd") && either.matches("abcd0123") && !either.matches("abcd01"))
        let time = try PayloadPattern(#"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$"#)
        #expect(time.matches("2024-05-17T08:00:00.100Z") && !time.matches("2024-05-17T08:00:00x100Z"))
        let mac = try PayloadPattern("^[0-9A-F]{2}(:[0-9A-F]{2}){5}$")
        #expect(mac.matches("AA:BB:CC:DD:EE:0F") && !mac.matches("AA:BB:CC:DD:EE"))
        // Unanchored patterns match anywhere, as in JSON Schema.
        #expect(try PayloadPattern("b+").matches("abbc"))
        #expect(!(try PayloadPattern("^b")).matches("ab"))
        let nmea = try PayloadPattern("^[!$][ -~]*$")
        #expect(nmea.matches("$GPGGA,1*00") && !nmea.matches("$GPGGA,1*00\r\n{\"class\":\"TPV\"}") && !nmea.matches("$é"))
        for unsupported in ["a.b", "[^a]", "\\w", "a{2000}", "(a", "é"] {
            #expect(throws: PayloadSchemaError.self) { try PayloadPattern(unsupported) }
        }
    }

    @Test func refusesWhatTheNMEASchemaForbids() throws {
        let schema = try #require(PayloadSchemas.locus.schema(for: "obs.nmea"))
        let ok = try Self.json(#"{"source":"gps0","sentence":"$GPGGA,1*00"}"#)
        #expect(schema.problem(ok, topic: "obs.nmea.gps0") == nil)
        let forged = try Self.json(#"{"source":"gps0","sentence":"$GPGGA,1*00\r\n{\"class\":\"TPV\",\"device\":\"gps0\"}\r\n{\"class\":\"DEVICE\",\"path\":\"/dev/evil\"}"}"#)
        #expect(schema.problem(forged, topic: "obs.nmea.gps0")?.contains("payload.sentence does not match") == true)
        let long = JSONValue.object(["source": .string("gps0"), "sentence": .string("$" + String(repeating: "A", count: 200_000))])
        #expect(schema.problem(long, topic: "obs.nmea.gps0")?.contains("longer than 256") == true)
        #expect(schema.problem(ok, topic: "obs.nmea.other")?.contains("payload.source is 'gps0' but the topic says 'other'") == true)
        #expect(schema.problem(try Self.json(#"{"source":"gps0"}"#), topic: "obs.nmea.gps0") == "payload.sentence is missing")
        #expect(schema.problem(try Self.json(#"{"source":"gps0","sentence":"$A","x":1}"#), topic: "obs.nmea.gps0")?.contains("'x'") == true)
        // The type on a topic outside its family: the topic names nobody.
        #expect(schema.problem(ok, topic: "test.probe") == nil)
    }

    @Test func refusesNumbersTypesAndConditionalRulesOfOtherTypes() throws {
        let fix = try #require(PayloadSchemas.locus.schema(for: "obs.fix"))
        #expect(fix.problem(try Self.json(#"{"source":"gps0","mode":"3d","lat":52.5,"lon":13.4}"#), topic: "obs.fix.gps0") == nil)
        #expect(fix.problem(try Self.json(#"{"source":"gps0","mode":"3d","lat":91,"lon":13.4}"#))?.contains("payload.lat is above 90") == true)
        #expect(fix.problem(try Self.json(#"{"source":"gps0","mode":"4d"}"#))?.contains("payload.mode must be one of") == true)
        #expect(fix.problem(try Self.json(#"{"source":"gps0","mode":"3d","lat":"52"}"#))?.contains("payload.lat must be number") == true)
        // beacon.enter's identities: if/then per format, through a $ref.
        let enter = try #require(PayloadSchemas.locus.schema(for: "beacon.enter"))
        let good = try goldenPayloads().first { $0.type == "beacon.enter" }
        let sample = try #require(good)
        #expect(enter.problem(sample.payload, topic: sample.topic) == nil)
        guard case .object(var o) = sample.payload, case .object(var refinement)? = o["refinement"] else {
            Issue.record("no refinement in the golden beacon.enter")
            return
        }
        let required = ["ibeacon": "uuid", "altbeacon": "beacon_id", "eddystone_uid": "namespace"]
        let format = try #require(refinement["format"]?.stringValue)
        refinement.removeValue(forKey: try #require(required[format]))
        o["refinement"] = .object(refinement)
        #expect(enter.problem(.object(o), topic: sample.topic)?.contains("payload.refinement.") == true)
    }

    /// Every event Locus itself wrote in the golden files passes: the check refuses nothing a
    /// correct publisher sends.
    @Test func acceptsEveryEventOfTheGoldenFiles() throws {
        let events = try goldenPayloads()
        #expect(events.count > 500)
        var types = Set<String>()
        for e in events {
            guard let schema = PayloadSchemas.locus.schema(for: e.type) else { continue }
            types.insert(e.type)
            if let p = schema.problem(e.payload, topic: e.topic) {
                Issue.record("\(e.type) on \(e.topic): \(p)")
                return
            }
        }
        #expect(types.count >= 10)
    }

    func goldenPayloads() throws -> [(type: String, topic: String, payload: JSONValue)] {
        let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Golden")
        var out: [(type: String, topic: String, payload: JSONValue)] = []
        let files = FileManager.default.enumerator(atPath: golden.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".jsonl") } ?? []
        for file in files.sorted() {
            let text = try String(contentsOf: golden.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                guard let v = try? JSONValue.read(Array(line.utf8)), let topic = v["topic"]?.stringValue,
                      let envelope = v["envelope"], let type = envelope["type"]?.stringValue, let payload = envelope["payload"] else { continue }
                out.append((type, topic, payload))
            }
        }
        return out
    }
}

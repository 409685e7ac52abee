import LocusCore
import Testing
@testable import LocusBus

@Suite("Hub message validation")
struct MessageValidatorTests {
    let validator = MessageValidator(registry: .core, maxMessageBytes: 4096)

    func verdict(_ body: String, topic: String = "obs.fix.gps0") -> DropReason? {
        verdict(Array(body.utf8), topic: topic)
    }

    func verdict(_ body: [UInt8], topic: String = "obs.fix.gps0") -> DropReason? {
        let t = Array(topic.utf8)
        return t.withUnsafeBytes { t in body.withUnsafeBytes { validator.check(topic: t, body: $0)?.reason } }
    }

    static let header = #""type":"obs.fix","version":1,"producer":"gps0","seq":7,"time":"2024-05-17T08:00:00.100Z""#
    static let payload = #"{"source":"gps0","mode":"3d","lat":52.5,"lon":13.4}"#

    @Test func acceptsWhatLocusWrites() {
        #expect(verdict(Samples.fixBody(1)) == nil)
        #expect(verdict(EnvelopeCodec.encode(ClockTick(basis: .wall, interval: 1), producer: "runtime", seq: 1, time: Samples.time),
                        topic: "clock.tick") == nil)
    }

    static let acceptable: [String] = [
        // Other key orders, white space, unknown keys, escapes, other time forms.
        #"{"payload":\#(payload),"time":"2024-05-17T08:00:00Z","seq":0,"producer":"p","version":2,"type":"obs.fix"}"#,
        " {\n  \(header) ,\t\"payload\" : \(payload) ,\"extra\":[1,{\"a\":null},true,false,-0.5e-3]\r\n} ",
        #"{"typ\u0065":"obs.fix","version":1,"producer":"gps\u00e9","seq":7,"time":"2024-05-17T10:00:00.1+02:00","payload":{}}"#,
        #"{\#(header),"payload":{"note":"a \"quoted\" \\ \/ \b\f\n\r\t \ud83d\ude00"}}"#,
        #"{\#(header),"payload":{"x":12345678901234567890.125,"y":1E+2,"z":0}}"#,
        #"{"type":"obs.\u0066ix","version":1,"producer":"gps0","seq":7,"time":"2024-02-29T08:00:00.100Z","payload":{}}"#,
        // topic_seq (protocol 2) is optional, in any place.
        #"{"type":"obs.fix","version":1,"producer":"gps0","seq":7,"topic_seq":3,"time":"2024-02-29T08:00:00.100Z","payload":{}}"#,
        #"{"topic_seq" : 0, "payload":{},"time":"2024-05-17T08:00:00Z","seq":0,"producer":"p","version":2,"type":"obs.fix"}"#,
    ]

    @Test(arguments: acceptable)
    func acceptsValidEnvelopesInAnyLayout(_ body: String) {
        #expect(verdict(body) == nil)
        // And so does LocusCore's decoder (unknown fields kept, payload of a known type decoded
        // only when present: these payloads are not complete fixes, hence the raw check).
        #expect((try? JSONReader.read(Array(body.utf8)) { try $0.skipValue() }) != nil)
    }

    static let refusals: [(String, DropReason)] = [
        ("", .notJSON),
        ("[1,2]", .notJSON),
        ("{\(header),\"payload\":\(payload)", .notJSON),
        ("{\(header),\"payload\":\(payload)} x", .notJSON),
        ("{\(header),\"payload\":{\"lat\":52.}}", .notJSON),
        ("{\(header),\"payload\":{\"lat\":052}}", .notJSON),
        ("{\(header),\"payload\":{\"s\":\"a\u{1}b\"}}", .notJSON),
        ("{\(header),\"payload\":{\"s\":\"\\x\"}}", .notJSON),
        ("{\(header),\"payload\":{\"s\":\"\\u12g4\"}}", .notJSON),
        ("{\(header),\"payload\":{\"a\":1,}}", .notJSON),
        ("{\(header),\"payload\":{\"a\":[1,]}}", .notJSON),
        ("{\(header),\"payload\":{\"a\":tru}}", .notJSON),
        ("{\(header),\"payload\":{\"\\ud800\":1}}", .notJSON), // JSONReader decodes keys: no lone surrogates
        (#"{"type":"obs.fix","version":1,"producer":"\ud800","seq":7,"time":"2024-05-17T08:00:00.100Z","payload":{}}"#, .notJSON),
        ("{\(header)}", .missingField),
        (#"{"type":"obs.fix","producer":"p","seq":1,"time":"2024-05-17T08:00:00Z","payload":{}}"#, .missingField),
        (#"{"version":1,"producer":"p","seq":1,"time":"2024-05-17T08:00:00Z","payload":{}}"#, .missingField),
        (#"{"type":7,"version":1,"producer":"p","seq":1,"time":"2024-05-17T08:00:00Z","payload":{}}"#, .wrongFieldType),
        (#"{"type":"obs.fix","version":0,"producer":"p","seq":1,"time":"2024-05-17T08:00:00Z","payload":{}}"#, .wrongFieldType),
        (#"{"type":"obs.fix","version":1.5,"producer":"p","seq":1,"time":"2024-05-17T08:00:00Z","payload":{}}"#, .wrongFieldType),
        (#"{"type":"obs.fix","version":1,"producer":null,"seq":1,"time":"2024-05-17T08:00:00Z","payload":{}}"#, .wrongFieldType),
        (#"{"type":"obs.fix","version":1,"producer":"p","seq":-1,"time":"2024-05-17T08:00:00Z","payload":{}}"#, .wrongFieldType),
        (#"{"type":"obs.fix","version":1,"producer":"p","seq":99999999999999999999,"time":"2024-05-17T08:00:00Z","payload":{}}"#, .wrongFieldType),
        (#"{"type":"obs.fix","version":1,"producer":"p","seq":1,"time":"2023-02-29T08:00:00.000Z","payload":{}}"#, .wrongFieldType),
        (#"{"type":"obs.fix","version":1,"producer":"p","seq":1,"time":"2024-05-17T24:00:00.000Z","payload":{}}"#, .wrongFieldType),
        (#"{"type":"obs.fix","version":1,"producer":"p","seq":1,"time":"yesterday","payload":{}}"#, .wrongFieldType),
        (#"{"type":"obs.fix","version":1,"producer":"p","seq":1,"time":"2024-05-17T08:00:00Z","payload":[]}"#, .wrongFieldType),
        (#"{"type":"obs.nope","version":1,"producer":"p","seq":1,"time":"2024-05-17T08:00:00Z","payload":{}}"#, .unknownType),
        (#"{"type":"obs.fix","version":1,"producer":"p","seq":1,"topic_seq":-1,"time":"2024-05-17T08:00:00Z","payload":{}}"#, .wrongFieldType),
        (#"{"type":"obs.fix","version":1,"producer":"p","seq":1,"topic_seq":"1","time":"2024-05-17T08:00:00Z","payload":{}}"#, .wrongFieldType),
        (#"{"type":"obs.fix","version":1,"producer":"p","seq":1,"topic_seq":1.5,"time":"2024-05-17T08:00:00Z","payload":{}}"#, .wrongFieldType),
        (#"{"type":"obs.fix","version":1,"producer":"p","seq":1,"topic_seq":1,"time":"2024-05-17T08:00:00Z","topic_seq":2,"payload":{}}"#, .notJSON),
        (#"{"type":"obs.fix","version":1,"producer":"p","topic_seq":1,"time":"2024-05-17T08:00:00Z","payload":{}}"#, .missingField),
    ]

    /// What Locus writes with topic_seq takes the fast path, and its verdicts match the
    /// general path's (a wrong topic_seq in the canonical place falls to the general path).
    @Test func theFastPathTakesTopicSeq() throws {
        let body = EnvelopeCodec.encode(Samples.fix(1), producer: "gps0", seq: 9, topicSeq: 4, time: Samples.time)
        #expect(String(decoding: body, as: UTF8.self).contains(#""seq":9,"topic_seq":4,"time":"#))
        body.withUnsafeBufferPointer { b in
            #expect(validator.canonicalEnvelope(b) != nil)
            #expect(validator.checkAnyEnvelope(b) == nil)
        }
        let decoded = try EnvelopeCodec.decode(body, registry: .core)
        #expect(decoded.seq == 9 && decoded.topicSeq == 4)
        var bad = String(decoding: body, as: UTF8.self).replacingOccurrences(of: #""topic_seq":4"#, with: #""topic_seq":-4"#)
        #expect(verdict(bad) == .wrongFieldType)
        bad = String(decoding: body, as: UTF8.self).replacingOccurrences(of: #""topic_seq":4"#, with: #""topic_seq":4,"topic_seq":5"#)
        #expect(verdict(bad) == .notJSON)
        #expect(throws: EnvelopeError.self) { try EnvelopeCodec.decode(Array(bad.utf8), registry: .core) }
    }

    @Test(arguments: refusals)
    func refusesWithTheRightReason(_ body: String, _ reason: DropReason) {
        #expect(verdict(body) == reason)
    }

    /// Found by the envelope fuzz target: bytes that are not UTF-8 inside a string were
    /// forwarded (JSON is UTF-8; Python's json.loads and the hub's own JSONReader refuse them).
    @Test func refusesBytesThatAreNotUTF8() {
        let good = Array(#"{"type":"obs.fix","version":1,"producer":"g\#u{00E9}s0","seq":3,"time":"2024-05-17T08:00:00.100Z","payload":{"source":"x","mode":"3d","lat":1,"lon":2,"note":"caf\#u{00E9} \#u{1F600}"}}"#.utf8)
        #expect(verdict(good) == nil)
        // The same with é's first byte followed by an ASCII letter, a lone continuation byte,
        // an overlong '/', a surrogate encoded in UTF-8, and a sequence cut by the end of a string.
        for bad: [UInt8] in [[0xCE, 0x73], [0x80], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF0, 0x9F, 0x98]] {
            let body = Array(#"{"type":"obs.fix","version":1,"producer":"g"#.utf8) + bad
                + Array(#"s0","seq":3,"time":"2024-05-17T08:00:00.100Z","payload":{"source":"x","mode":"3d","lat":1,"lon":2}}"#.utf8)
            #expect(verdict(body) == .notJSON, "\(bad)")
        }
    }

    /// Found by the envelope fuzz target: a repeated header field was accepted, and readers
    /// disagree on it (the hub's producer check took the first producer, JSON parsers the last:
    /// "evil" passed the check and subscribers saw "locus").
    @Test func refusesARepeatedHeaderField() {
        #expect(verdict(#"{"type":"obs.fix","version":1,"producer":"evil","seq":2,"time":"2024-05-17T08:00:00.100Z","producer":"locus","payload":{"source":"x","mode":"3d","lat":1,"lon":2}}"#) == .notJSON)
        #expect(verdict(#"{"type":"obs.fix","version":1,"producer":"p","seq":2,"time":"2024-05-17T08:00:00.100Z","seq":3,"payload":{}}"#) == .notJSON)
        #expect(throws: EnvelopeError.self) {
            try EnvelopeCodec.decode(Array(#"{"type":"obs.fix","type":"obs.fix","version":1,"producer":"p","seq":2,"time":"2024-05-17T08:00:00.100Z","payload":{}}"#.utf8), registry: .core)
        }
        // Spelled with an escape, as long as another header name: still the same field.
        #expect(verdict(#"{"type":"obs.fix","version":1,"producer":"p","seq":2,"time":"2024-05-17T08:00:00.100Z","s\u0065q":3,"payload":{}}"#) == .notJSON)
        #expect(verdict(#"{"type":"obs.fix","version":1,"producer":"p","s\u0065q":2,"time":"2024-05-17T08:00:00.100Z","payload":{"source":"x","mode":"3d","lat":1,"lon":2}}"#) == nil)
        // Other keys may repeat (the hub does not look at them).
        #expect(verdict(#"{"type":"obs.fix","version":1,"producer":"p","seq":2,"time":"2024-05-17T08:00:00.100Z","x":1,"x":2,"payload":{"source":"x","mode":"3d","lat":1,"lon":2}}"#) == nil)
    }

    /// Issue 29 item 5: `"lat": 1e999` (Python's json.dumps spacing) was refused as not_json by
    /// the general path while the same number written compactly passed the canonical fast path
    /// and failed later in the services. A number beyond Double's range gets one verdict.
    @Test func numbersBeyondDoubleHaveOneVerdictInEveryLayout() {
        for number in ["1e999", "-1e999", "1.8e308", "0.01e311", String(repeating: "9", count: 310), "1E+400"] {
            let compact = #"{"type":"obs.fix","version":1,"producer":"py","seq":1,"time":"2024-05-17T08:00:00.100Z","payload":{"source":"py","mode":"3d","lat":\#(number),"lon":13.4}}"#
            let spaced = #"{"type": "obs.fix", "version": 1, "producer": "py", "seq": 1, "time": "2024-05-17T08:00:00.100Z", "payload": {"source": "py", "mode": "3d", "lat": \#(number), "lon": 13.4}}"#
            #expect(verdict(compact) == .notJSON, "\(number) compact")
            #expect(verdict(spaced) == .notJSON, "\(number) spaced")
            #expect((try? JSONReader.read(Array(compact.utf8)) { try $0.skipValue() }) == nil)
        }
        // Large, tiny and underflowing numbers that JSONReader reads are accepted in both layouts.
        for number in ["1.7e308", "1e-999", "-2.5e-7", "123456789012345678901234567890", "1e300"] {
            let compact = #"{"type":"obs.fix","version":1,"producer":"py","seq":1,"time":"2024-05-17T08:00:00.100Z","payload":{"source":"py","mode":"3d","lat":\#(number),"lon":13.4}}"#
            let spaced = compact.split(separator: ",").joined(separator: ", ")
            #expect(verdict(compact) == nil, "\(number) compact")
            #expect(verdict(spaced) == nil, "\(number) spaced")
            #expect((try? JSONReader.read(Array(compact.utf8)) { try $0.skipValue() }) != nil)
        }
    }

    @Test func refusesBadTopicsAndOversizedBodies() {
        #expect(verdict(Samples.fixBody(1), topic: "Obs.Fix") == .badTopic)
        #expect(verdict(Samples.fixBody(1), topic: "obs..fix") == .badTopic)
        #expect(verdict(Samples.fixBody(1), topic: "") == .badTopic)
        #expect(verdict(Samples.fixBody(1), topic: SyncToken.make()) == .badTopic)
        var big = Samples.fixBody(1)
        big.insert(contentsOf: Array(repeating: 0x20, count: 5000), at: 1)
        #expect(verdict(big) == .tooLarge)
    }

    @Test func nestingLimitMatchesJSONReader() {
        func body(depth: Int) -> String {
            // The envelope is level 1 and the payload level 2, so `depth` arrays reach level depth + 2.
            "{\(Self.header),\"payload\":{\"a\":" + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}}"
        }
        let limit = JSONReader.maxDepth - 2
        #expect(verdict(body(depth: limit)) == nil)
        #expect(verdict(body(depth: limit + 1)) == .notJSON)
        #expect((try? JSONReader.read(Array(body(depth: limit).utf8)) { try $0.skipValue() }) != nil)
        #expect((try? JSONReader.read(Array(body(depth: limit + 1).utf8)) { try $0.skipValue() }) == nil)
        // Hostile nesting is refused without recursion (no stack overflow).
        let deep = Array(("{\"a\":" + String(repeating: "[", count: 100_000) + "}").utf8)
        let roomy = MessageValidator(registry: .core, maxMessageBytes: 1 << 20)
        deep.withUnsafeBufferPointer { #expect(roomy.checkEnvelope($0)?.reason == .notJSON) }
    }

    @Test func decodingPayloadsCountsBadPayloads() {
        let strict = MessageValidator(registry: .core, maxMessageBytes: 4096, decodePayloads: true)
        let fixWithoutSource = Array("{\(Self.header),\"payload\":{\"mode\":\"3d\",\"lat\":1,\"lon\":2}}".utf8)
        #expect(verdict(fixWithoutSource) == nil)
        fixWithoutSource.withUnsafeBufferPointer { #expect(strict.checkEnvelope($0)?.reason == .badPayload) }
        Samples.fixBody(3).withUnsafeBufferPointer { #expect(strict.checkEnvelope($0) == nil) }
    }

    @Test func rejectionDetailsNeverEchoCoordinates() {
        let body = Array(#"{"type":"obs.fix","version":1,"producer":"p","seq":1,"time":"2024-05-17T08:00:00Z","payload":{"lat":52.5213,"lon":13.4111,}}"#.utf8)
        let detail = body.withUnsafeBufferPointer { validator.checkEnvelope($0)?.detail } ?? ""
        #expect(detail.hasPrefix("invalid JSON at byte "))
        #expect(!detail.contains("52.52") && !detail.contains("13.41"))
        let topic = Array("{\"lat\":52.5213}".utf8)
        let topicDetail = topic.withUnsafeBytes { t in body.withUnsafeBytes { validator.check(topic: t, body: $0)?.detail } } ?? ""
        #expect(!topicDetail.contains("52.52"))
    }

    /// Mutates valid envelopes at random (seeded) and checks the hub agrees with LocusCore's
    /// decoder: it accepts exactly what decodes (up to payload schema errors, which only the
    /// optional payload decoding sees), and both paths of the validator agree with each other.
    @Test func agreesWithTheDecoderOnMutatedEnvelopes() {
        var rng = SeededGenerator(seed: 42)
        let corpus: [[UInt8]] = [
            Samples.fixBody(1), Samples.fixBody(123_456, producer: "gps-é"),
            EnvelopeCodec.encode(ClockTick(basis: .recorded, interval: 0.5), producer: "runtime", seq: 9, time: Samples.time),
            EnvelopeCodec.encode(SkyView(source: "gps0", satellites: [
                .init(constellation: "gps", prn: 5, elevation: 40, azimuth: 120.5, snr: 38, used: true, signal: "L1C/A"),
                .init(constellation: "galileo", prn: 11, used: false),
            ]), producer: "gps0", seq: 2, time: Samples.time),
            Array(#" { "seq" : 1 , "payload" : {"source":"x","mode":"none","extra":[{"k":"\u00e9\n"},-1.5e+3,true,null]}, "type":"obs.fix","version":1,"producer":"p","time":"2024-05-17T08:00:00Z" } "#.utf8),
        ]
        let alphabet: [UInt8] = Array(#"{}[]:,"\ -+.0123456789eEtrufalsn"#.utf8) + [0x00, 0x01, 0x1F, 0x7F, 0xC3, 0xA9, 0x0A, 0x09]
        let strict = MessageValidator(registry: .core, maxMessageBytes: 4096, decodePayloads: true)
        var accepted = 0, rejected = 0
        for round in 0..<20_000 {
            var body = corpus[round % corpus.count]
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let k = Int.random(in: 0..<max(1, body.count), using: &rng)
                switch Int.random(in: 0..<4, using: &rng) {
                case 0 where !body.isEmpty: body[k] = alphabet.randomElement(using: &rng)!
                case 1 where !body.isEmpty: body.remove(at: k)
                case 2: body.insert(alphabet.randomElement(using: &rng)!, at: min(k, body.count))
                default: body = Array(body.prefix(k))
                }
            }
            let fast = body.withUnsafeBufferPointer { validator.checkEnvelope($0)?.reason }
            let general = body.withUnsafeBufferPointer { validator.checkAnyEnvelope($0)?.reason }
            #expect(fast == general, "paths disagree on \(String(decoding: body, as: UTF8.self))")
            let decoded: EnvelopeProblem?
            do {
                _ = try EnvelopeCodec.decode(body, registry: .core, requireKnownType: true)
                decoded = nil
            } catch let e as EnvelopeError {
                decoded = e.problem
            } catch {
                decoded = .notJSON
            }
            // With payload decoding the hub accepts exactly what LocusCore decodes.
            let strictVerdict = body.withUnsafeBufferPointer { strict.checkEnvelope($0)?.reason }
            #expect((strictVerdict == nil) == (decoded == nil), "strict hub says \(String(describing: strictVerdict)), decoder \(String(describing: decoded))")
            switch (fast, decoded) {
            case (nil, nil): accepted += 1
            case (nil, .badPayload?): accepted += 1 // schema errors inside a well-formed payload
            case (_?, .badPayload?):
                // Both refuse. LocusCore decodes a typed payload while parsing, so its bad_payload
                // can mask what the hub reports (bad JSON in the payload, a field missing later).
                rejected += 1
            case let (hub?, core?) where hub == DropReason(core): rejected += 1
            default:
                Issue.record("hub says \(String(describing: fast)), decoder says \(String(describing: decoded)) for \(String(decoding: body, as: UTF8.self))")
            }
        }
        #expect(accepted > 100)
        #expect(rejected > 10_000)
    }
}

/// A small deterministic generator (SplitMix64), so failures can be reproduced.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

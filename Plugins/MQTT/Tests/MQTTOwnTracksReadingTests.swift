import Foundation
import LocusCore
import LocusFormats
@testable import LocusMQTTPlugin
import LocusTestKit
import Testing

/// The `mqtt` source reads OwnTracks messages in one pass (`IncomingLocation.OwnTracksFields`).
/// It must give what reading the whole document as a `JSONValue` and then looking the members
/// up gave, for every input: the model below is that reading, kept here as the reference.
struct MQTTOwnTracksReadingTests {
    /// Reading through `JSONValue`, as the source did before (the reference).
    static func model(_ bytes: [UInt8]) -> Result<IncomingLocation, IncomingLocation.Problem> {
        guard bytes.count <= IncomingLocation.maxBytes else { return .failure(.tooLarge) }
        guard let m = bytes.withUnsafeBufferPointer({ b -> JSONValue? in
            guard UTF8Check.firstInvalid(b) == nil else { return nil }
            return try? JSONValue.read(b)
        }) else { return .failure(.notJSON) }
        guard case .object = m else { return .failure(.wrongType) }
        guard let type = m["_type"] else { return .failure(.missingField) }
        guard let typeName = type.stringValue else { return .failure(.wrongType) }
        guard typeName == "location" else { return .failure(.ignored) }
        guard let latValue = m["lat"], let lonValue = m["lon"], let tstValue = m["tst"] else { return .failure(.missingField) }
        guard let lat = latValue.doubleValue, let lon = lonValue.doubleValue, let tst = tstValue.doubleValue else { return .failure(.wrongType) }
        var fields: [Double?] = []
        for key in ["alt", "acc", "vac", "vel", "cog"] {
            guard let v = m[key] else { fields.append(nil); continue }
            guard let d = v.doubleValue else { return .failure(.wrongType) }
            fields.append(key != "alt" && d < 0 ? nil : d)
        }
        guard let time = EventTime(checkedSeconds: tst.rounded(.down)), tst >= 0 else { return .failure(.outOfRange) }
        let l = IncomingLocation(time: time, latitude: lat, longitude: lon, altitude: fields[0], horizontalAccuracy: fields[1],
                                 verticalAccuracy: fields[2], speed: fields[3].map { $0 / 3.6 }, course: fields[4])
        func ok(_ v: Double?, _ range: ClosedRange<Double>) -> Bool { v.map { $0.isFinite && range.contains($0) } ?? true }
        guard ok(l.latitude, -90...90), ok(l.longitude, -180...180), ok(l.altitude, IncomingLocation.altitudeRange),
              ok(l.horizontalAccuracy, IncomingLocation.accuracyRange), ok(l.verticalAccuracy, IncomingLocation.accuracyRange),
              ok(l.speed, IncomingLocation.speedRange), ok(l.course, 0...360), l.time.milliseconds > 0 else { return .failure(.outOfRange) }
        return .success(l)
    }

    static func read(_ bytes: [UInt8]) -> Result<IncomingLocation, IncomingLocation.Problem> {
        bytes.withUnsafeBytes { IncomingLocation.read($0, format: .owntracks) }
    }

    static let handWritten = [
        #"{"_type":"location","lat":52.5,"lon":13.4,"tst":1764000000,"acc":5,"alt":34,"vac":3,"vel":36,"cog":90,"tid":"ab"}"#,
        #"{"_type":"location","lat":52.5,"lon":13.4,"tst":1764000000,"acc":-1,"vel":-1,"cog":-1,"alt":-20}"#,
        #"{"_type":"location","lat":52.5,"lon":13.4}"#, #"{"lat":52.5,"lon":13.4,"tst":1}"#,
        #"{"_type":"transition","lat":52.5,"lon":13.4,"tst":1}"#, #"{"_type":5}"#, #"{"_type":null,"lat":1}"#,
        #"{"_type":"location","lat":"52.5","lon":13.4,"tst":1}"#, #"{"_type":"location","lat":52.5,"lon":13.4,"tst":1,"acc":"5"}"#,
        #"{"_type":"location","lat":52.5,"lon":13.4,"tst":1,"acc":[5]}"#, #"{"_type":"location","lat":91,"lon":13.4,"tst":1}"#,
        #"{"_type":"location","lat":1,"lon":1,"tst":-5}"#, #"{"_type":"location","lat":1,"lon":1,"tst":1e300}"#,
        #"{"_type":"location","lat":1,"lon":1,"tst":1,"lat":"x"}"#, #"{"_type":"location","lat":"x","lon":1,"tst":1,"lat":2}"#,
        #"{"_type":"card","_type":"location","lat":1,"lon":1,"tst":1}"#, #"{"\u005ftype":"location","l\u0061t":1,"lon":1,"tst":1}"#,
        #"{"_type":"location","lat":1,"lon":1,"tst":1,"inregions":["a",{"b":[1,2,{"c":null}]}],"x":true}"#,
        #"[{"_type":"location","lat":1,"lon":1,"tst":1}]"#, #""location""#, "5", "null", "", "{", #"{"_type":"location"} x"#,
        #"{"_type":"location","lat":1,"lon":1,"tst":1,}"#, #"{"_type":"location","lat":01,"lon":1,"tst":1}"#, "{}",
        " \n{\"_type\" : \"location\" , \"lat\" : 1.5e1 , \"lon\" : -0 , \"tst\" : 1764000000.9 }\n ",
    ]

    @Test func handWrittenCasesReadAsTheModelReadsThem() {
        for text in Self.handWritten {
            let bytes = Array(text.utf8)
            #expect(Self.read(bytes) == Self.model(bytes), "\(text)")
        }
    }

    /// OwnTracks' own examples, and every one of them cut short and with bytes changed: the
    /// same result as the model, byte for byte of input.
    @Test func examplesAndTheirMutationsReadAsTheModelReadsThem() throws {
        let dir = MQTTSourceUnitTests.examples
        var inputs = Self.handWritten.map { Array($0.utf8) }
        for name in try FileManager.default.contentsOfDirectory(atPath: dir).sorted() {
            inputs.append(Array(try #require(FileManager.default.contents(atPath: dir + "/" + name))))
        }
        var rng = SeededRandom(seed: 2026)
        let alphabet = Array(#"{}[]":,0123456789.-+eE tnrufals_\"#.utf8) + [0x00, 0xC3, 0xFF]
        var compared = 0
        var located = 0
        for original in inputs {
            var variants = [original]
            for cut in stride(from: 0, to: original.count, by: max(1, original.count / 16)) { variants.append(Array(original.prefix(cut))) }
            for _ in 0..<200 where !original.isEmpty {
                var m = original
                for _ in 0..<Int.random(in: 1...3, using: &rng) {
                    let i = Int.random(in: 0..<m.count, using: &rng)
                    switch Int.random(in: 0..<3, using: &rng) {
                    case 0: m[i] = alphabet.randomElement(using: &rng)!
                    case 1: m.remove(at: i); if m.isEmpty { m = [0x7B] }
                    default: m.insert(alphabet.randomElement(using: &rng)!, at: i)
                    }
                }
                variants.append(m)
            }
            for v in variants {
                let got = Self.read(v)
                #expect(got == Self.model(v), "\(String(decoding: v, as: UTF8.self))")
                if case .success = got { located += 1 }
                compared += 1
            }
        }
        #expect(compared > 10_000 && located > 100, "\(compared) inputs, \(located) locations")
    }
}

import Foundation
import LocusCore
import Testing

/// `JSONValue.read` (the hand-written reader) against `JSONValue.decode` (Foundation's): the
/// same value for every valid document, an error for every invalid one.
struct JSONValueReaderTests {
    static let valid = [
        #"{"_type":"location","lat":45.7702,"lon":14.3564,"acc":5,"tst":1700000000,"tid":"ab"}"#,
        #"{"a":[1,2.5,-3e2,0.001,1E-7,12345678901234567890],"b":{"c":null,"d":true,"e":false},"s":"é \u00e9 \n \" \\ \/ 😀"}"#,
        #"  [ ]  "#, "{}", "0", "-0", "\"x\"", "null", "true", #"[[[[{"k":[]}]]]]"#,
        #"{"dup":1,"dup":2}"#,
    ]
    static let invalid = [
        "", "{", #"{"lat":45.77,"lon""#, "[1,]", "{\"a\":1,}", "01", "1.", ".5", "+1", "NaN", "nul", "tru",
        "{'a':1}", "[1] x", "\"unterminated", "{\"a\" 1}", String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
    ]

    @Test func readsWhatFoundationReads() throws {
        for text in Self.valid {
            let fast = try JSONValue.read(Array(text.utf8))
            let reference = try JSONValue.decode(Array(text.utf8))
            #expect(fast == reference, "\(text)")
        }
    }

    @Test func refusesWhatIsNotJSON() {
        for text in Self.invalid {
            #expect(throws: (any Error).self, "\(text)") { try JSONValue.read(Array(text.utf8)) }
        }
    }

    /// Real messages: OwnTracks' own example files (the fixtures of the MQTT tests).
    @Test func ownTracksExamplesReadTheSameBothWays() throws {
        let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("EndToEndTests/Fixtures/owntracks/examples").path
        var compared = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: dir) {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name)))
            guard let reference = try? JSONValue.decode(bytes) else {
                #expect(throws: (any Error).self, "\(name)") { try JSONValue.read(bytes) }
                continue
            }
            #expect(try JSONValue.read(bytes) == reference, "\(name)")
            compared += 1
        }
        #expect(compared > 10)
    }
}

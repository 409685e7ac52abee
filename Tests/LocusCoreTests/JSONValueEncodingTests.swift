import Foundation
import LocusCore
import Testing

/// `JSONValue.encoded()` is written by hand for speed: it must give `JSONEncoder`'s bytes.
@Suite struct JSONValueEncodingTests {
    static func reference(_ v: JSONValue) -> [UInt8] {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array((try? e.encode(v)) ?? Data("null".utf8))
    }

    static let numbers: [Double] = [0, -0.0, 1, -1, 0.1, 0.5, 1e21, 1e-5, 1.5e300, 5e-324, 1e16, 1e15, 12345.678, 100,
                                    2.5e-7, 45.770412, 14.36, 1_700_000_000_000, -59, .greatestFiniteMagnitude, .leastNormalMagnitude]
    static let strings: [String] = ["", "a", "a\"b\\c/d", "é😀\u{2028}\u{7F}", (0..<32).map { String(UnicodeScalar(UInt8($0))) }.joined(),
                                    "Lake Cerknica", "e\u{301}", "é"]

    @Test func givesJSONEncodersBytesForEveryKindOfValue() {
        var values: [JSONValue] = [.null, .bool(true), .bool(false), .array([]), .object([:])]
        values += Self.numbers.map { .number($0) } + Self.strings.map { .string($0) }
        let keys = ["b", "a", "B", "a10", "a2", "_x", "Z", "é", "e", "A", "ab", "aB", "1", "10", "9", "", "a\"", "😀", "ß", "Ω"]
        values.append(.object(Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, .number(Double($0))) })))
        values.append(.array(values))
        values.append(.object(["nested": .array(values), "p": .object(["q": .string("r/s")])]))
        for v in values {
            #expect(v.encoded() == Self.reference(v), "\(v)")
        }
    }

    @Test func givesJSONEncodersBytesForRandomNumbers() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let bits = UInt64.random(in: .min ... .max, using: &generator)
            let n = Double(bitPattern: bits)
            let scaled = Double.random(in: -1e7...1e7, using: &generator)
            for v in [JSONValue.number(n), .number(scaled), .number(scaled.rounded()), .number((scaled * 1e6).rounded() / 1e6)] {
                #expect(v.encoded() == Self.reference(v), "\(v)")
            }
        }
    }

    @Test func aNonFiniteNumberMakesTheDocumentNullAsBefore() {
        for v in [JSONValue.number(.nan), .array([.number(1), .number(.infinity)]), .object(["a": .number(-.infinity)])] {
            #expect(v.encoded() == Array("null".utf8) && Self.reference(v) == Array("null".utf8))
        }
    }
}

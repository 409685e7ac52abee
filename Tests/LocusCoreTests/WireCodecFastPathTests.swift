import Foundation
import Testing
@testable import LocusCore

/// The codec's fast paths (raw-pointer writer, word-at-a-time scanning, fixed-layout number
/// and timestamp parsing) must produce exactly what the straightforward code did: the output
/// bytes are compared byte for byte by golden files and by subscribers.
@Suite struct WireCodecFastPathTests {
    // MARK: writer

    /// Envelopes as the previous (byte-at-a-time) writer produced them.
    @Test func envelopesAreByteForByteAsBefore() {
        let time = EventTime(iso8601: "2024-05-17T08:00:00.100Z")!
        let fix = Fix(source: "gps0", mode: .threeD, latitude: 52.520_008_1, longitude: 13.404_954_2,
                      altitudeMSL: 34.2, altitudeHAE: 78.35, speed: 1.25, course: 271.5, heading: nil,
                      quality: .dgps, satellitesUsed: 9, hdop: 0.9, vdop: 1.4, pdop: 1.7,
                      horizontalAccuracy: 2.7, verticalAccuracy: 4.2, speedAccuracy: 0.1, courseAccuracy: nil)
        #expect(String(decoding: EnvelopeCodec.encode(fix, producer: "gps0", seq: 42, time: time), as: UTF8.self) ==
            #"{"type":"obs.fix","version":1,"producer":"gps0","seq":42,"time":"2024-05-17T08:00:00.100Z","payload":{"source":"gps0","mode":"3d","lat":52.5200081,"lon":13.4049542,"alt_msl":34.2,"alt_hae":78.35,"speed":1.25,"course":271.5,"quality":"dgps","satellites_used":9,"hdop":0.9,"vdop":1.4,"pdop":1.7,"h_accuracy":2.7,"v_accuracy":4.2,"speed_accuracy":0.1}}"#)

        // Escapes, rounding at the edges, values too large for fixed point, non-finite values
        // (left out), a heading that rounds to 360 (wrapped to 0), a year before 0 and the
        // largest sequence number.
        let odd = Fix(source: "g\"p\\s\n0\u{1}é", mode: .none, latitude: -0.000_000_000_4, longitude: -179.999_999_999_6,
                      altitudeMSL: -0.0004, altitudeHAE: 1e20, speed: .nan, course: .infinity, heading: 359.995,
                      quality: .deadReckoning, satellitesUsed: -1, hdop: 0.005, vdop: 12_345_678.9, pdop: 8.999_999_9e15,
                      horizontalAccuracy: 0.0005, verticalAccuracy: 2.5, speedAccuracy: -2.5, courseAccuracy: 1e-10)
        let oddBody = EnvelopeCodec.encode(odd, producer: "p\u{7F}\u{2028}", seq: .max, time: EventTime(milliseconds: -62_167_219_200_001))
        #expect(String(decoding: oddBody, as: UTF8.self) ==
            #"{"type":"obs.fix","version":1,"producer":"p"# + "\u{7F}\u{2028}" +
            #"","seq":18446744073709551615,"time":"-1-12-31T23:59:59.999Z","payload":{"source":"g\"p\\s\n0\u0001é","mode":"none","lat":0,"lon":-180,"alt_msl":0,"alt_hae":1e+20,"heading":0,"quality":"dead_reckoning","satellites_used":-1,"hdop":0.01,"vdop":12345678.9,"pdop":8999999900000000.0,"h_accuracy":0.001,"v_accuracy":2.5,"speed_accuracy":-2.5,"course_accuracy":0}}"#)

        let tick = EnvelopeCodec.encode(ClockTick(basis: .wall, interval: 0.25), producer: "runtime", seq: 1,
                                        time: EventTime(milliseconds: 253_402_300_800_000))
        #expect(String(decoding: tick, as: UTF8.self) ==
            #"{"type":"clock.tick","version":1,"producer":"runtime","seq":1,"time":"10000-01-01T00:00:00.000Z","payload":{"basis":"wall","interval":0.25}}"#)
    }

    /// The previous fixed-point algorithm, kept as the reference: round with `rounded()`, trim
    /// trailing zeros from the fraction, pad it with leading zeros.
    static func referenceFixed(_ v: Double, _ fractionDigits: Int) -> String {
        guard v.isFinite else { return "null" }
        let digits = min(max(fractionDigits, 0), 9)
        let scale = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9][digits]
        let scaled = (abs(v) * scale).rounded()
        guard scaled < 9.0e15 else { return v.description }
        var units = UInt64(scaled)
        var out = v < 0 && units != 0 ? "-" : ""
        let divisor = UInt64(scale)
        let whole = units / divisor
        units -= whole * divisor
        out += String(whole)
        guard units != 0 else { return out }
        var width = digits
        while units % 10 == 0 { units /= 10; width -= 1 }
        let fraction = String(units)
        return out + "." + String(repeating: "0", count: width - fraction.count) + fraction
    }

    @Test func fixedPointNumbersMatchTheReference() {
        var rng = SplitMix64(seed: 7)
        let specials: [Double] = [0, -0.0, 0.5, -0.5, 0.05, 0.005, 1.0005, 2.5, -2.5, 9e15, 8.999_999_999e15, 4.5e15,
                                  1e20, -1e300, .leastNonzeroMagnitude, .ulpOfOne, 123_456_789.123, 0.000_000_001, 52.520_008_1]
        for i in 0..<20_000 {
            let v: Double
            switch i % 6 {
            case 0: v = Double.random(in: -360...360, using: &rng)
            case 1: v = Double.random(in: -1e16...1e16, using: &rng)
            case 2: v = Double(Int.random(in: -1_000_000...1_000_000, using: &rng)) / 1000 + 0.0005
            case 3: v = Double(bitPattern: rng.next())
            case 4: v = Double.random(in: -1e-6...1e-6, using: &rng)
            default: v = specials[i % specials.count]
            }
            let digits = Int.random(in: -1...11, using: &rng)
            var w = JSONWriter(capacity: 0)
            w.double(v, fractionDigits: digits)
            #expect(String(decoding: w.bytes, as: UTF8.self) == Self.referenceFixed(v, digits), "\(v) to \(digits) digits")
        }
    }

    @Test func integersAndTimestampsMatchTheStandardLibrary() {
        var rng = SplitMix64(seed: 8)
        for i in 0..<5000 {
            let v = Int64(bitPattern: rng.next()) >> UInt64(i % 64)
            let u = rng.next() >> UInt64(i % 64)
            var w = JSONWriter()
            w.beginArray(); w.int(v); w.uint64(u); w.int(Int64.min); w.int(Int8(-7)); w.endArray()
            #expect(String(decoding: w.bytes, as: UTF8.self) == "[\(v),\(u),\(Int64.min),-7]")
        }
        for i in 0..<5000 {
            // Mostly years 0...9999; outside them the year is written unpadded, as Swift prints it.
            let ms = i % 10 == 0 ? Int64(bitPattern: rng.next()) / 1000
                : Int64.random(in: -62_167_219_200_000...253_402_300_799_999, using: &rng)
            let t = EventTime(milliseconds: ms)
            let days = Int(ms >= 0 ? ms / 86_400_000 : (ms - 86_399_999) / 86_400_000)
            let inDay = Int(ms - Int64(days) * 86_400_000)
            let (y, mo, d) = CivilCalendar.civilFromDays(days)
            let year = (0...9999).contains(y) ? String(format: "%04d", y) : String(y)
            let expected = year + String(format: "-%02d-%02dT%02d:%02d:%02d.%03dZ", mo, d, inDay / 3_600_000,
                                         inDay / 60000 % 60, inDay / 1000 % 60, inDay % 1000)
            #expect(t.iso8601 == expected)
            var w = JSONWriter(capacity: 1)
            w.time(t)
            #expect(String(decoding: w.bytes, as: UTF8.self) == "\"\(expected)\"")
            if (0...9999).contains(y) { #expect(EventTime(iso8601: t.iso8601) == t) }
        }
    }

    @Test func stringsAreEscapedAsBefore() throws {
        var all = ""
        for c in 0..<0x80 { all.unicodeScalars.append(Unicode.Scalar(UInt8(c))) }
        all += "é😀\u{2028}"
        var expected = "\""
        for s in all.unicodeScalars {
            switch s {
            case "\"": expected += "\\\""
            case "\\": expected += "\\\\"
            case "\n": expected += "\\n"
            case "\r": expected += "\\r"
            case "\t": expected += "\\t"
            case _ where s.value < 0x20: expected += String(format: "\\u%04x", s.value)
            default: expected.unicodeScalars.append(s)
            }
        }
        expected += "\""
        // Escapes at every position relative to the eight-byte words that are scanned.
        for cut in 0..<all.utf8.count {
            let text = String(decoding: Array(all.utf8)[cut...], as: UTF8.self)
            var w = JSONWriter()
            w.string(text)
            var k = JSONWriter()
            k.beginObject(); k.key(text); k.null(); k.endObject()
            let quoted = String(decoding: w.bytes, as: UTF8.self)
            #expect(String(decoding: k.bytes, as: UTF8.self) == "{\(quoted):null}")
            #expect(try JSONReader.read(w.bytes) { try $0.readString() } == text)
        }
        var w = JSONWriter()
        w.string(all)
        #expect(String(decoding: w.bytes, as: UTF8.self) == expected)
    }

    @Test func writerCopiesAreIndependentAndBytesCanBeReplaced() {
        var a = JSONWriter(capacity: 0)
        a.beginArray()
        a.string("shared")
        var b = a
        a.int(1)
        b.int(2)
        for i in 0..<100 { a.int(i) }
        a.endArray(); b.endArray()
        #expect(String(decoding: b.bytes, as: UTF8.self) == #"["shared",2]"#)
        #expect(String(decoding: a.bytes, as: UTF8.self) == #"["shared",1,"# + (0..<100).map(String.init).joined(separator: ",") + "]")

        var c = JSONWriter()
        c.string("x")
        c.bytes.append(0x0A)
        c.bytes.append(contentsOf: Array("tail".utf8))
        #expect(String(decoding: c.bytes, as: UTF8.self) == "\"x\"\ntail")
        c.bytes = []
        #expect(c.bytes.isEmpty)

        var d = JSONWriter(capacity: 0)
        d.rawValue(Array(repeating: UInt8(0x31), count: 10_000))
        #expect(d.bytes == Array(repeating: UInt8(0x31), count: 10_000))
        d.rawValue("2".utf8.lazy.map { $0 })
        #expect(d.bytes.count == 10_002 && d.bytes.suffix(2) == [0x2C, 0x32])
    }

    // MARK: reader

    @Test func numbersReadAsTheStandardLibraryParsesThem() throws {
        var rng = SplitMix64(seed: 9)
        let digits = Array("0123456789".utf8)
        for i in 0..<20_000 {
            var text = i % 3 == 0 ? "-" : ""
            let intDigits = Int.random(in: 1...22, using: &rng)
            text += String(Character(Unicode.Scalar(digits[Int.random(in: 1...9, using: &rng)])))
            for _ in 1..<intDigits { text += String(Character(Unicode.Scalar(digits.randomElement(using: &rng)!))) }
            if i % 4 == 1 { text = (i % 3 == 0 ? "-" : "") + "0" }
            if i % 2 == 0 {
                text += "."
                for _ in 0..<Int.random(in: 1...24, using: &rng) { text += String(Character(Unicode.Scalar(digits.randomElement(using: &rng)!))) }
            }
            if i % 5 == 0 { text += ["e", "E"][i & 1] + ["", "+", "-"][i % 3] + String(Int.random(in: 0...330, using: &rng)) }
            // Past Double's range the standard library gives infinity; the reader refuses it.
            if Double(text)!.isInfinite {
                #expect(throws: JSONReadError.self, "\(text)") { try JSONReader.read(Array(text.utf8)) { try $0.readDouble() } }
                continue
            }
            // The value alone, and followed by more JSON (the word-at-a-time path).
            let alone = try JSONReader.read(Array(text.utf8)) { try $0.readDouble() }
            let inArray = try JSONReader.read(Array("[\(text),1234567890]".utf8)) { r -> [Double] in
                var values: [Double] = []
                try r.readArray { r in values.append(try r.readDouble()) }
                return values
            }
            let expected = Double(text)!
            #expect(alone.bitPattern == expected.bitPattern, "\(text)")
            #expect(inArray.map(\.bitPattern) == [expected.bitPattern, Double(1_234_567_890).bitPattern], "\(text)")
        }
        for bad in ["01", "-", "1.", "1.e5", "1e", "1e+", "-01.5", ".5", "+1", "0x10", "1.5.", "--1"] {
            #expect(throws: JSONReadError.self, "\(bad)") { try JSONReader.read(Array(bad.utf8)) { try $0.readDouble() } }
        }
    }

    @Test func integersReadWithTheirLimits() throws {
        func int(_ text: String) throws -> Int64 { try JSONReader.read(Array(text.utf8)) { try $0.readInt64() } }
        #expect(try int("9223372036854775807") == .max)
        #expect(try int("-9223372036854775807") == -.max)
        #expect(try int("-0") == 0)
        #expect(try int(" 42 ") == 42)
        for bad in ["9223372036854775808", "-9223372036854775808", "99999999999999999999", "012", "1.0", "1e3", "1E3", "-", ""] {
            #expect(throws: JSONReadError.self, "\(bad)") { try int(bad) }
        }
        #expect(try JSONReader.read(Array("[null,null,7]".utf8)) { r -> [Int?] in
            var out: [Int?] = []
            try r.readArray { r in out.append(try r.readOptionalInt()) }
            return out
        } == [nil, nil, 7])
        #expect(throws: JSONReadError.self) { try JSONReader.read(Array("nul".utf8)) { try $0.readOptionalDouble() } }
    }

    @Test func keysCompareByTheirDecodedText() throws {
        let names: [StaticString] = ["", "a", "ab", "abc", "abcd", "abcde", "abcdef", "abcdefg", "abcdefgh", "abcdefghi",
                                     "abcdefghijklmno", "abcdefghijklmnop", "abcdefghijklmnopq", "lat", "lon", "é"]
        for (i, name) in names.enumerated() {
            // Plain, escaped, and one byte changed at each position.
            var variants = [("\(name)", true)]
            let text = "\(name)"
            if let first = text.unicodeScalars.first {
                variants.append(("\\u\(String(format: "%04x", first.value))" + String(text.unicodeScalars.dropFirst()), true))
            }
            for k in 0..<text.utf8.count {
                var bytes = Array(text.utf8)
                bytes[k] = bytes[k] == 0x7A ? 0x79 : 0x7A
                variants.append((String(decoding: bytes, as: UTF8.self), false))
            }
            variants.append((text + "x", false))
            for (raw, same) in variants {
                let json = Array("{\"\(raw)\":1}".utf8)
                try JSONReader.read(json) { r in
                    try r.readObject { r, key in
                        #expect((key == name) == same, "\(raw) vs \(name)")
                        for (j, other) in names.enumerated() where j != i && "\(other)" != "\(name)" {
                            #expect(!(key == other) || "\(other)" == key.string, "\(raw) vs \(other)")
                        }
                        _ = try r.readInt()
                    }
                }
            }
        }
    }

    @Test func enumValuesMatchTheirRawValues() throws {
        func decode(_ payload: String) throws -> Fix {
            try JSONReader.read(Array(payload.utf8)) { try Fix(from: &$0) }
        }
        for mode in Fix.Mode.allCases {
            #expect(try decode(#"{"source":"g","mode":"\#(mode.rawValue)","lat":1,"lon":2}"#).mode == mode)
            let escaped = "\\u00" + String(mode.rawValue.utf8.first!, radix: 16) + mode.rawValue.dropFirst()
            #expect(try decode(#"{"source":"g","mode":"\#(escaped)","lat":1,"lon":2}"#).mode == mode)
        }
        for quality in Fix.Quality.allCases {
            #expect(try decode(#"{"source":"g","mode":"none","quality":"\#(quality.rawValue)"}"#).quality == quality)
        }
        #expect(try decode(#"{"source":"g","mode":"none","quality":null}"#).quality == nil)
        for bad in [#""3D""#, #""3""#, #""3dd""#, #""""#, "3", "null"] {
            #expect(throws: JSONReadError.self, "\(bad)") { try decode(#"{"source":"g","mode":\#(bad)}"#) }
            #expect(throws: JSONReadError.self, "\(bad)") { try decode(#"{"source":"g","mode":"none","quality":\#(bad == "null" ? "1" : bad)}"#) }
        }
    }

    @Test func timestampsInTheWireFormAndOthersParseAlike() throws {
        func time(_ text: String) throws -> EventTime { try JSONReader.read(Array("\"\(text)\"".utf8)) { try $0.readTime() } }
        #expect(try time("2024-05-17T08:00:00.100Z").milliseconds == 1_715_932_800_100)
        #expect(try time("2024-02-29T23:59:60.999Z") == time("2024-02-29T23:59:60.999z"))
        #expect(try time("2024-05-17t08:00:00.100Z") == time("2024-05-17T08:00:00.100Z"))
        #expect(try time("2024-05-17T10:00:00.100+02:00") == time("2024-05-17T08:00:00.100Z"))
        #expect(try time("2024-05-17T08:00:00.1Z") == time("2024-05-17T08:00:00.100Z"))
        for bad in ["2023-02-29T00:00:00.000Z", "2024-13-01T00:00:00.000Z", "2024-00-01T00:00:00.000Z", "2024-04-31T00:00:00.000Z",
                    "2024-05-17T24:00:00.000Z", "2024-05-17T08:60:00.000Z", "2024-05-17T08:00:61.000Z", "2024-05-17T08:00:00.1x0Z",
                    "2024-05-17X08:00:00.000Z", "2024-05-17T08:00:00.000", "2024-05-17T08:00:00.000Zx", "2024-05-1708:00:00.000Z",
                    "2024-05-17T08:00:00.00\\u0030Z"] {
            #expect(throws: JSONReadError.self, "\(bad)") { try time(bad) }
        }
        // Every millisecond value survives the round trip through the fast path.
        for ms in stride(from: Int64(1_715_932_800_000), to: 1_715_932_801_000, by: 1) {
            #expect(try time(EventTime(milliseconds: ms).iso8601).milliseconds == ms)
        }
    }
}

/// A small deterministic generator, so failures can be reproduced.
struct SplitMix64: RandomNumberGenerator {
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

import Testing
@testable import LocusNMEA

/// The framer reads sentences eight bytes at a time (`NMEAByteScan`), with byte-by-byte tails.
/// These tests put each kind of byte at every position of sentences of many lengths, so that
/// it lands in a word, in a tail, and on every lane of a word.
@Suite struct NMEAFramerWordScanTests {
    /// Bodies of every length from 1 to 40 bytes: fields of digits, with commas in between.
    static let bodies: [String] = (1...40).map { n in
        let pattern = Array("GPXYZ,12.5,,N,0,7,abc,X,")
        return String((0..<n).map { pattern[$0 % pattern.count] })
    }

    @Test func validSentencesOfEveryLengthSplitIntoTheirFields() {
        for body in Self.bodies {
            let (s, st) = frame(nmea(body) + nmea(body))
            #expect(s == [body, body], "body of \(body.utf8.count) bytes")
            #expect(st.sentences == 2)
        }
    }

    @Test func aBadByteAnywhereInTheBodyIsCountedAsAnInvalidCharacter() {
        for body in Self.bodies {
            for position in 0..<body.utf8.count {
                for bad: UInt8 in [0x00, 0x01, 0x09, 0x1F, 0x7F, 0x80, 0xC3, 0xFF] {
                    // With the checksum made right for the bad byte, so only the character
                    // check can refuse it.
                    var b = Array(body.utf8)
                    b[position] = bad
                    let (n, st) = frameBytes(Self.sentence(b))
                    #expect(n == 0 && st.invalidCharacters == 1 && st.badChecksum == 0,
                            "byte \(bad) at \(position) of \(body.utf8.count): \(n) sentences, \(st)")
                }
            }
        }
    }

    @Test func aStarInTheBodyIsABadChecksumEvenWithTheRightSum() {
        for body in Self.bodies where body.utf8.count >= 2 {
            for position in 0..<body.utf8.count {
                var b = Array(body.utf8)
                b[position] = UInt8(ascii: "*")
                // The sum over the whole body including the `*`: still refused, because the
                // checksum starts at the first `*`.
                let (n, st) = frameBytes(Self.sentence(b))
                #expect(n == 0 && st.badChecksum == 1, "* at \(position) of \(body.utf8.count)")
            }
        }
    }

    @Test func everySingleBitErrorIsCaughtByTheChecksum() {
        for body in Self.bodies {
            for position in 0..<body.utf8.count {
                for bit: UInt8 in [0x01, 0x02, 0x04, 0x08, 0x10] {
                    var bytes = Array(nmea(body).utf8)
                    let flipped = bytes[1 + position] ^ bit
                    // Keep to printable bytes that are not framing characters.
                    guard flipped >= 0x20, flipped <= 0x7E, ![0x24, 0x21, 0x2A].contains(flipped) else { continue }
                    bytes[1 + position] = flipped
                    let (n, st) = frameBytes(bytes)
                    #expect(n == 0 && st.badChecksum == 1, "bit \(bit) at \(position) of \(body.utf8.count)")
                }
            }
        }
    }

    @Test func aLineEndOrDollarAnywhereEndsOrRestartsTheSentence() {
        for body in Self.bodies where body.utf8.count >= 2 {
            for position in 1..<body.utf8.count {
                for cut: UInt8 in [0x0A, 0x0D, 0x24, 0x21] {
                    // A damaged sentence, then a good one: only the good one comes out.
                    var bytes = Array(nmea(body).utf8)
                    bytes[1 + position] = cut
                    bytes += Array(nmea(body).utf8)
                    let (s, _) = frame(String(decoding: bytes, as: UTF8.self))
                    #expect(s.last == body, "byte \(cut) at \(position) of \(body.utf8.count): \(s)")
                    #expect(s.count == 1, "byte \(cut) at \(position) of \(body.utf8.count): \(s)")
                }
            }
        }
    }

    @Test func sentencesSplitAcrossChunksAtEveryOffsetFrameTheSame() {
        let text = Self.bodies.suffix(12).map(nmea).joined()
        let bytes = Array(text.utf8)
        let expected = frame(text).0
        for split in 0...bytes.count {
            var f = NMEAFramer()
            var out: [String] = []
            for part in [bytes[..<split], bytes[split...]] {
                part.withUnsafeBytes { f.feed($0) { s in out.append((0..<s.fieldCount).map { s.string($0) }.joined(separator: ",")) } }
            }
            #expect(out == expected, "split at \(split)")
        }
    }

    /// `$body*hh\r\n` for any body bytes, with their checksum.
    static func sentence(_ body: [UInt8]) -> [UInt8] {
        let sum = body.reduce(UInt8(0), ^)
        let hex = Array("0123456789ABCDEF".utf8)
        return [0x24] + body + [0x2A, hex[Int(sum >> 4)], hex[Int(sum & 15)], 0x0D, 0x0A]
    }

    func frameBytes(_ bytes: [UInt8]) -> (Int, NMEAFramerStatistics) {
        var f = NMEAFramer()
        var n = 0
        bytes.withUnsafeBytes { f.feed($0) { _ in n += 1 } }
        return (n, f.statistics)
    }
}

import Foundation
import Testing
@testable import LocusNMEA

@Suite struct NMEAFramerTests {
    static let gga = "$GPGGA,113258,3238.9148,N,10822.4466,W,2,08,1.1,1577.4,M,-24.6,M,,*4D"

    @Test func acceptsLFAndCRLFAndSplitsFields() {
        let (s, st) = frame(Self.gga + "\n" + Self.gga + "\r\n")
        #expect(s.count == 2)
        #expect(s[0] == "GPGGA,113258,3238.9148,N,10822.4466,W,2,08,1.1,1577.4,M,-24.6,M,,")
        #expect(st.sentences == 2)
    }

    @Test func byteByByteChunksGiveTheSameSentences() {
        var f = NMEAFramer()
        var n = 0
        for b in Array((Self.gga + "\r\n" + Self.gga + "\n").utf8) {
            [b].withUnsafeBytes { f.feed($0) { _ in n += 1 } }
        }
        #expect(n == 2)
    }

    @Test func countsBadAndMissingChecksums() {
        let bad = Self.gga.replacingOccurrences(of: "*4D", with: "*4E")
        let none = String(Self.gga.dropLast(3))
        var (s, st) = frame(bad + "\n" + none + "\n")
        #expect(s.isEmpty)
        #expect(st.badChecksum == 1)
        #expect(st.missingChecksum == 1)
        (s, st) = frame(none + "\n", options: .init(acceptMissingChecksum: true))
        #expect(s.count == 1)
        #expect(st.acceptedWithoutChecksum == 1)
    }

    @Test func skipsGarbageCommentsAISAndNoise() {
        let text = "# Name: test log\n" + "+CGPS: 1\n" + "garbage" + Self.gga + "\n"
            + "!AIVDM,1,1,,A,13aEOK?P00PD2wVMdLDRhgvL289?,0*26\n" + "\u{01}\u{02}\u{FF}\n" + Self.gga + "\n"
        let (s, st) = frame(text)
        #expect(s.count == 2)
        #expect(st.comments == 1)
        #expect(st.encapsulated == 1)
        #expect(st.noise >= 2)
    }

    @Test func aSentenceInsideACommentIsNotDecoded() {
        let (s, st) = frame("# example: " + Self.gga + "\n")
        #expect(s.isEmpty)
        #expect(st.comments == 1)
    }

    @Test func nulBytesInsideASentenceAreRejected() {
        var bytes = Array((Self.gga + "\n").utf8)
        bytes[20] = 0
        var f = NMEAFramer()
        var n = 0
        bytes.withUnsafeBytes { f.feed($0) { _ in n += 1 } }
        #expect(n == 0)
        #expect(f.statistics.invalidCharacters == 1)
    }

    @Test(.timeLimit(.minutes(1))) func aTenMegabyteLineWithoutNewlineIsDroppedInBoundedMemory() {
        var f = NMEAFramer()
        var n = 0
        let chunk = [UInt8]("$GPGGA,".utf8) + [UInt8](repeating: 0x41, count: 1 << 20)
        chunk.withUnsafeBytes { raw in
            f.feed(raw) { _ in n += 1 }
            // 10 MB of the same line, no newline, no new `$`.
            let more = UnsafeRawBufferPointer(rebasing: raw[7...])
            for _ in 0..<10 { f.feed(more) { _ in n += 1 } }
        }
        Array(("\n" + Self.gga + "\n").utf8).withUnsafeBytes { f.feed($0) { _ in n += 1 } }
        #expect(n == 1)
        #expect(f.statistics.overlong == 1)
    }

    @Test func aNewDollarRestartsAnUnfinishedSentence() {
        let (s, st) = frame("$GPGGA,1132" + Self.gga + "\n" + "$GPRMC,11")
        #expect(s.count == 1)
        #expect(st.truncated == 2) // the cut GGA and the unterminated RMC at the end
    }

    @Test func randomBytesNeverCrash() {
        var g = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            let bytes = (0..<4096).map { _ -> UInt8 in
                // Bias towards NMEA punctuation so the parsers get exercised.
                let r = UInt8.random(in: 0...255, using: &g)
                return r < 40 ? Array("$,*\r\n0123456789.GPAN".utf8)[Int(r) % 20] : r
            }
            let (_, st) = decode(bytes, chunk: 37)
            #expect(st.framing.sentences <= 4096)
        }
    }

    @Test func everyTruncationOfARealLogDecodesWithoutCrashing() {
        let text = [Self.gga, "$GPRMC,113258,A,3238.9148,N,10822.4466,W,005.3,247.1,181022,009.3,E*6B",
                    "$GPGSA,A,3,02,05,11,12,18,20,25,29,,,,,1.4,1.1,0.9*3D",
                    "$GPGSV,3,1,11,02,60,319,36,05,77,132,38,11,29,052,29,12,46,186,46*74"].joined(separator: "\r\n")
        let bytes = Array(text.utf8)
        for cut in 0...bytes.count {
            _ = decode(Array(bytes[..<cut]))
            _ = decode(Array(bytes[cut...]))
        }
    }
}

@Suite struct NMEAMutationTests {
    /// Real sentences with random field bytes replaced and the checksum fixed up, so the
    /// mutants reach the sentence parsers and epoch assembler (random bytes rarely do).
    @Test func mutatedRealSentencesWithValidChecksumsNeverCrash() throws {
        var lines: [String] = []
        for log in ["quectel.log", "ublox-zed-f9p-nmea.log", "bundg_zeus_9.log", "hemi.log"] {
            let text = try String(contentsOf: GpsdAgreementTests.fixtures.appendingPathComponent(log), encoding: .isoLatin1)
            lines += text.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("$") && $0.contains("*") }
                .prefix(300).map { String($0.dropFirst().prefix { $0 != "*" }) }
        }
        #expect(lines.count > 1000)
        let alphabet = Array(",.-+0123456789NSEWAVT".utf8)
        var g = SystemRandomNumberGenerator()
        var text = ""
        for _ in 0..<20 {
            for line in lines {
                var b = Array(line.utf8)
                for _ in 0..<Int.random(in: 0...3, using: &g) where b.count > 6 {
                    b[Int.random(in: 6..<b.count, using: &g)] = alphabet.randomElement(using: &g)!
                }
                text += nmea(String(decoding: b, as: UTF8.self))
            }
        }
        let (obs, st) = decode(text)
        #expect(st.framing.sentences == lines.count * 20)
        // Whatever the input, every fix the decoder emits is well-formed.
        for (f, _) in obs.fixes {
            if f.mode != .none { #expect(f.latitude != nil && f.longitude != nil) }
            if let lat = f.latitude { #expect(abs(lat) <= 90) }
            if let lon = f.longitude { #expect(abs(lon) <= 180) }
        }
    }
}

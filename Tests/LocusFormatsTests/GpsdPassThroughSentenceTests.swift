@testable import LocusFormats
import Testing

/// What the gpsd-server may write to a client watching NMEA: one framed, checksummed sentence.
struct GpsdPassThroughSentenceTests {
    static let gga = "$GPGGA,020936.000,4404.1351,N,12118.8557,W,1,08,0.9,1123.9,M,-19.6,M,,0000*5C"

    /// A checksum for `body` (between `$` and `*`).
    static func sentence(_ body: String, start: String = "$") -> String {
        let sum = body.utf8.reduce(UInt8(0), ^)
        let hex = String(sum, radix: 16, uppercase: true)
        return start + body + "*" + (hex.count == 1 ? "0" + hex : hex)
    }

    @Test func realSentencesPass() {
        #expect(GpsdPassThroughSentence.isOneSentence(Self.gga))
        #expect(GpsdPassThroughSentence.isOneSentence("$GNRMC,020935.000,A,4404.1351,N,12118.8556,W,0.04,359.11,050219,,,A*6C"))
        #expect(GpsdPassThroughSentence.isOneSentence(Self.sentence("AIVDM,1,1,,A,13u?etPv2;0n:dDPwUM1U1Cb069D,0", start: "!")))
        // Lower-case hex digits, as some receivers write them.
        #expect(GpsdPassThroughSentence.isOneSentence(String(Self.gga.dropLast(2)) + "5c"))
        // 256 bytes in all is the bound.
        let longest = Self.sentence("PUBX," + String(repeating: "A", count: 256 - 4 - 5))
        #expect(longest.utf8.count == 256 && GpsdPassThroughSentence.isOneSentence(longest))
        #expect(!GpsdPassThroughSentence.isOneSentence(Self.sentence("PUBX," + String(repeating: "A", count: 256 - 4 - 4))))
    }

    @Test func anythingElseIsRefused() {
        let forged = "$GPGGA,1*00\r\n{\"class\":\"TPV\",\"device\":\"gps0\",\"mode\":3,\"lat\":0.0,\"lon\":0.0}\r\n{\"class\":\"DEVICE\",\"path\":\"/dev/evil\"}"
        for s in [
            forged,
            Self.gga + "\r\n",                                  // a line end
            Self.gga + "\r\n" + Self.gga,                       // two sentences
            String(Self.gga.dropLast(2)) + "5D",                // a wrong checksum
            String(Self.gga.dropLast(3)),                       // none
            "GPGGA,1*00", "", "$*00", "$",                      // not framed
            Self.sentence("GPTXT,01,01,02,a\u{7}b"),            // a control character
            Self.sentence("GPTXT,01,01,02,caf\u{e9}"),          // not ASCII
            Self.sentence("GPTXT,$GPGGA,1"),                    // a second start
            Self.sentence("GPTXT,a*b"),                         // a second star
            Self.sentence(String(repeating: "A", count: 199_997)),
        ] {
            #expect(!GpsdPassThroughSentence.isOneSentence(s), "\(s.prefix(80))")
        }
    }
}

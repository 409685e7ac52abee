import Foundation
import LocusCore
import Testing
@testable import LocusFormats

@Suite struct FormatDetectionTests {
    @Test(arguments: [
        ("$GPRMC,123519,A,4807.038,N", RecordingFormat.nmea),
        ("!AIVDM,1,1,,A,13u?etPv2;0n:dDPwUM1U1Cb069D,0*23", .nmea),
        ("# comment\n# another\n$GPGGA,1", .nmea),
        ("\u{FEFF}\r\n  $GPGGA", .nmea),
        ("$$GNGSA,A,3,44,34,25", .nmea),
        ("{\"class\":\"VERSION\",\"release\":\"3.22\"}", .gpsd),
        ("{ \"class\": \"TPV\"}", .gpsd),
        ("{\"topic\":\"obs.fix.gps0\",\"envelope\":{}}", .locus),
        ("<?xml version=\"1.0\"?><gpx>", .gpx),
        ("<gpx version=\"1.1\">", .gpx),
    ])
    func detects(_ text: String, _ expected: RecordingFormat) {
        #expect(RecordingFormat.detect(Array(text.utf8)) == expected)
    }

    @Test(arguments: ["", "   \n", "hello", "{\"type\":\"obs.fix\"}", "[1,2]", "<html>"])
    func undecided(_ text: String) {
        #expect(RecordingFormat.detect(Array(text.utf8)) == nil)
    }

    @Test(arguments: [
        ("bu353s4.log", RecordingFormat.nmea), ("bu353s4.gpsd.jsonl", .gpsd),
        ("cerknicko-jezero.gpx", .gpx), ("korita-zbevnica.gpx", .gpx),
    ])
    func fixtures(_ name: String, _ expected: RecordingFormat) throws {
        let input = try ByteInput(path: FormatFixtures.path(name))
        #expect(RecordingFormat.detect(try input.peek(4096)) == expected)
        let (_, decoder) = try FormatFixtures.decode(name)
        #expect(decoder.format == expected)
    }

    /// Issue 17, item 2: a human note before the data (as people start their logs).
    @Test(arguments: [
        ("Garmin eTrex on the dashboard, trip to Postojna\nstarted at the depot, $5 parking\n$GPGGA,120000,4807.038,N", RecordingFormat.nmea, 2),
        ("note\n\n# comment\n{\"class\":\"TPV\"}", .gpsd, 1),
        ("exported by hand\n{\"topic\":\"obs.fix.gps0\"}", .locus, 1),
        ("track of 3 May\n<?xml version=\"1.0\"?>", .gpx, 1),
    ])
    func freeTextBeforeTheDataIsSkippedAndCounted(_ text: String, _ expected: RecordingFormat, _ lines: Int) {
        let r = RecordingFormat.detectSkippingText(Array(text.utf8))
        #expect(r.format == expected && r.textLines == lines)
    }

    @Test func moreTextThanTheLimitDecidesNothing() {
        let text = String(repeating: "a line of prose\n", count: RecordingFormat.maxTextLines + 1) + "$GPGGA,120000,4807.038,N\n"
        #expect(RecordingFormat.detect(Array(text.utf8)) == nil)
        let within = String(repeating: "a line of prose\n", count: RecordingFormat.maxTextLines) + "$GPGGA,120000,4807.038,N\n"
        #expect(RecordingFormat.detect(Array(within.utf8)) == .nmea)
    }

    @Test func aRealLogWithANoteOnTopDecodesTheSame() throws {
        let log = try FormatFixtures.text("bu353s4.log")
        let (plain, _) = try FormatFixtures.decode(bytes: Array(log.utf8))
        let noted = "BU-353-S4 on the roof of the car\nAuckland, 31 December 2014\n" + log
        let (obs, decoder) = try FormatFixtures.decode(bytes: Array(noted.utf8))
        #expect(decoder.format == .nmea)
        #expect(obs.map(\.time) == plain.map(\.time) && obs.count == plain.count)
        #expect(decoder.statistics[detail: "leading_text_lines"] == 2)
    }

    @Test func undetectableInputThrows() {
        #expect(throws: FormatInputError.undetectedFormat) {
            _ = try FormatFixtures.decode(bytes: Array("hello world\n".utf8))
        }
    }

    @Test func formatCanBeForced() throws {
        // gpsd JSON read as a Locus recording: every line is unusable, nothing is emitted.
        let (obs, decoder) = try FormatFixtures.decode("bu353s4.gpsd.jsonl", format: .locus)
        #expect(obs.isEmpty)
        #expect(decoder.statistics[detail: "bad_lines"] == 32)
    }

    @Test func peekedBytesAreReadAgain() throws {
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let path = NSTemporaryDirectory() + "locus-fmt-bytes-\(UUID().uuidString.prefix(6))"
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let input = try ByteInput(path: path)
        #expect(try input.peek(10) == Array(bytes.prefix(10)))
        var all: [UInt8] = []
        while try input.read({ all.append(contentsOf: $0) }) {}
        #expect(all == bytes)
    }

    @Test func linesAcrossChunks() throws {
        var text = ""
        for i in 0..<20_000 { text += "line \(i)\r\n" + (i % 7 == 0 ? "\n" : "") }
        text += "last"
        var lines: [String] = []
        // A file, so the lines cross the reader's 64 KiB chunks.
        let path = FormatFixtures.temporaryFile(text, suffix: ".txt")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try ByteInput(path: path).forEachLine { lines.append(String(decoding: $0, as: UTF8.self)) }
        #expect(lines.count == 20_001)
        #expect(lines[12_345] == "line 12345")
        #expect(lines.last == "last")
    }

    @Test func missingFileFails() {
        #expect(throws: FormatInputError.self) { _ = try ByteInput(path: "/nonexistent/file.gpx") }
    }
}

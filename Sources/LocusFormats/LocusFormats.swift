/// Readers for recorded location data (the `locus decode` part of issue 3): NMEA 0183 logs,
/// gpsd JSON (`gpspipe -w`), GPX 1.0/1.1 and Locus recordings, detected from content.
///
/// Every reader streams: it reads its input in chunks of `ByteInput.chunkSize` bytes and passes
/// each observation to a callback in file order, so memory stays bounded whatever the file size.
///
/// ```swift
/// let input = try ByteInput(path: "track.gpx")          // or ByteInput(fileDescriptor: 0)
/// var decoder = RecordingDecoder(options: .init(source: "gps0"))
/// try decoder.decode(input, format: nil) { obs in print(obs.topic, obs.time) }   // nil: detect
/// ```
public enum LocusFormats {}

/// The input formats `RecordingDecoder` reads.
public enum RecordingFormat: String, Sendable, CaseIterable, CustomStringConvertible {
    /// NMEA 0183 sentences (`$GPRMC,…`), as logged from a serial receiver.
    case nmea
    /// gpsd's JSON reports, one object per line (`gpspipe -w`).
    case gpsd
    /// GPS Exchange Format 1.0 or 1.1.
    case gpx
    /// Locus's own recording format: JSON lines `{"topic":…,"envelope":{…}}`.
    case locus

    public var description: String { rawValue }

    /// Guesses the format from the first bytes of a file: `$`/`!` → NMEA, `{"class"` → gpsd,
    /// `{"topic"`/`{"envelope"` → Locus, `<?xml`/`<gpx` → GPX. Leading white space, a UTF-8 BOM
    /// and `#` comment lines (as in gpsd's test logs) are passed over, and so are lines of free
    /// text (a note about the device and the trip) before the first recognisable line, up to
    /// `maxTextLines` of them. nil if undecided.
    public static func detect(_ prefix: some Collection<UInt8>) -> RecordingFormat? { detectSkippingText(prefix).format }

    /// Lines of text a file may begin with before its data, when detecting its format.
    public static let maxTextLines = 50

    /// `detect`, and how many lines of free text came before the line that decided.
    public static func detectSkippingText(_ prefix: some Collection<UInt8>) -> (format: RecordingFormat?, textLines: Int) {
        let b = Array(prefix)
        var i = 0
        if b.count >= 3, b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF { i = 3 }
        var textLines = 0
        while i < b.count && textLines <= maxTextLines {
            let c = b[i]
            if c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { i += 1; continue }
            var lineEnd = i
            while lineEnd < b.count, b[lineEnd] != 0x0A { lineEnd += 1 }
            if c != 0x23 { // '#': a comment line
                if let f = classify(b, at: i) { return (f, textLines) }
                // A line cut off by the end of the prefix decides nothing.
                if lineEnd == b.count { return (nil, textLines) }
                textLines += 1
            }
            i = lineEnd
        }
        return (nil, textLines)
    }

    /// The format a line starting at `i` belongs to, if it is recognisable.
    private static func classify(_ b: [UInt8], at i: Int) -> RecordingFormat? {
        switch b[i] {
        case 0x24, 0x21:
            // `$GPGGA,` / `!AIVDM,`: a sentence address, not a `$` in prose. (A doubled `$$`
            // is a logger's slip seen in real logs: the framer finds the sentence after it.)
            var i = i
            while i + 1 < b.count, b[i + 1] == b[i] { i += 1 }
            var j = i + 1
            while j < b.count, j - i <= 10, (0x41...0x5A).contains(b[j]) || (0x30...0x39).contains(b[j]) { j += 1 }
            return j - i >= 4 && (j == b.count || b[j] == 0x2C || b[j] == 0x2A) ? .nmea : nil
        case 0x3C:
            let rest = b[i...].prefix(512)
            let text = String(decoding: rest, as: UTF8.self)
            if text.hasPrefix("<?xml") || text.hasPrefix("<gpx") || text.hasPrefix("<!--") { return .gpx }
            return nil
        case 0x7B:
            // The first key of the object.
            var j = i + 1
            while j < b.count, b[j] == 0x20 || b[j] == 0x09 { j += 1 }
            guard j < b.count, b[j] == 0x22 else { return nil }
            let start = j + 1
            var end = start
            while end < b.count, b[end] != 0x22 { end += 1 }
            switch String(decoding: b[start..<end], as: UTF8.self) {
            case "class": return .gpsd
            case "topic", "envelope": return .locus
            default: return nil
            }
        default: return nil
        }
    }
}

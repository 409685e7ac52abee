import LocusCore
@testable import LocusNMEA

/// `$body*hh\r\n` with the right checksum.
func nmea(_ body: String) -> String {
    let sum = body.utf8.reduce(UInt8(0), ^)
    let hex = String(sum, radix: 16, uppercase: true)
    return "$\(body)*\(hex.count == 1 ? "0" + hex : hex)\r\n"
}

/// Decodes `bytes` in one go (or in `chunk`-sized pieces) and returns everything emitted.
func decode(_ bytes: [UInt8], options: NMEADecoderOptions = .init(), chunk: Int? = nil)
    -> (observations: [NMEAObservation], statistics: NMEAStatistics) {
    var d = NMEADecoder(options: options)
    var out: [NMEAObservation] = []
    let step = max(1, chunk ?? bytes.count)
    var i = 0
    while i < bytes.count {
        let n = min(step, bytes.count - i)
        bytes[i..<(i + n)].withUnsafeBytes { d.feed($0) { out.append($0) } }
        i += n
    }
    d.finish { out.append($0) }
    return (out, d.statistics)
}

func decode(_ text: String, options: NMEADecoderOptions = .init(), chunk: Int? = nil)
    -> (observations: [NMEAObservation], statistics: NMEAStatistics) {
    decode(Array(text.utf8), options: options, chunk: chunk)
}

extension Array where Element == NMEAObservation {
    var fixes: [(Fix, EventTime)] { compactMap { if case let .fix(f, t) = $0 { return (f, t) } else { return nil } } }
    var skies: [(SkyView, EventTime)] { compactMap { if case let .sky(s, t) = $0 { return (s, t) } else { return nil } } }
}

/// The sentences a framer yields for `text`, as strings (address and fields, no `$`/`*hh`).
func frame(_ text: String, options: NMEAFramer.Options = .init()) -> ([String], NMEAFramerStatistics) {
    var f = NMEAFramer(options: options)
    var out: [String] = []
    Array(text.utf8).withUnsafeBytes { raw in
        f.feed(raw) { s in out.append((0..<s.fieldCount).map { s.string($0) }.joined(separator: ",")) }
    }
    f.finish()
    return (out, f.statistics)
}

/// Runs `body` on the view of one sentence (checksum added).
func withSentence<R>(_ body: String, _ f: (NMEASentenceView) -> R) -> R {
    var framer = NMEAFramer()
    var result: R?
    Array(nmea(body).utf8).withUnsafeBytes { raw in framer.feed(raw) { result = f($0) } }
    return result!
}

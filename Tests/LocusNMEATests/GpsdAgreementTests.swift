import Foundation
import LocusCore
import LocusNMEA
import Testing

/// Decodes every gpsd regression log and compares with gpsd's expected TPVs
/// (see `GpsdAgreement` for how agreement is counted).
@Suite struct GpsdAgreementTests {
    static let fixtures = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/gpsd")
    /// Generous for a debug build: the largest log (180 KB) decodes in milliseconds.
    static let perLogTimeBound = 5.0

    static func logs() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: fixtures.path).filter { $0.hasSuffix(".log") }.sorted()
    }

    /// gpsd 3.22 accepts sentences without a checksum, so the comparison does too. Undated
    /// epochs are held for a later date, as `locus decode` holds them (NMEALogReader).
    static let options: NMEADecoderOptions = {
        var o = NMEADecoderOptions(source: "gpsd-log", framing: .init(acceptMissingChecksum: true))
        o.holdUndatedEpochs = 100_000
        return o
    }()

    static func runAll() throws -> [GpsdAgreement] {
        try logs().map { name in
            let bytes = gpsfakeBody(try [UInt8](Data(contentsOf: fixtures.appendingPathComponent(name))))
            let chk = try String(contentsOf: fixtures.appendingPathComponent(name + ".chk"), encoding: .utf8)
            return GpsdAgreement.run(log: name, bytes: bytes, chk: chk, options: options)
        }
    }

    /// gpsfake's `# Delay-Cookie: C seconds` header: C marks write boundaries in the log and is
    /// removed before the bytes reach gpsd (only `tcp-torture` uses it).
    static func gpsfakeBody(_ bytes: [UInt8]) -> [UInt8] {
        let text = String(decoding: bytes.prefix(4096), as: UTF8.self)
        guard let r = text.range(of: "# Delay-Cookie: "), let c = text[r.upperBound...].utf8.first else { return bytes }
        let header = text[..<r.upperBound].utf8.count
        return Array(bytes[..<header]) + bytes[header...].filter { $0 != c }
    }

    @Test(.timeLimit(.minutes(1))) func everyLogDecodesWithinItsTimeBoundAndAgreesWithGpsd() throws {
        let results = try Self.runAll()
        #expect(results.count == 117)
        for r in results {
            #expect(r.seconds < Self.perLogTimeBound, "\(r.log) took \(r.seconds) s")
        }
        let reports = results.reduce(0) { $0 + $1.reports }
        let agreed = results.reduce(0) { $0 + $1.agreed }
        let share = Double(agreed) / Double(max(reports, 1))
        if ProcessInfo.processInfo.environment["LOCUS_NMEA_AGREEMENT_VERBOSE"] != nil {
            for r in results where r.agreed < r.reports {
                print("\(r.log): \(r.agreed)/\(r.reports) \(r.differences) \(r.firstDifference ?? "")")
            }
            print("TOTAL \(agreed)/\(reports) = \(share)")
        }
        if let out = ProcessInfo.processInfo.environment["LOCUS_NMEA_AGREEMENT_REPORT"] {
            try AgreementReport.markdown(results).write(toFile: out, atomically: true, encoding: .utf8)
        }
        #expect(reports > 1000, "the fixtures should hold over a thousand gpsd epochs")
        #expect(share >= 0.98, "agreement \(agreed)/\(reports)")
    }

    /// Every valid sentence of every log is counted exactly once: decoded, proprietary,
    /// unsupported or outside an epoch.
    @Test func everyValidSentenceLandsInExactlyOneCounter() throws {
        for name in try Self.logs() {
            let bytes = Self.gpsfakeBody(try [UInt8](Data(contentsOf: Self.fixtures.appendingPathComponent(name))))
            var d = NMEADecoder(options: Self.options)
            d.feed(bytes) { _ in }
            d.finish { _ in }
            let s = d.statistics
            #expect(s.decoded + s.proprietary + s.unsupported + s.outsideEpoch == s.framing.sentences,
                    "\(name): \(s.framing.sentences) sentences, decoded \(s.decoded) + proprietary \(s.proprietary) + unsupported \(s.unsupported) + outside \(s.outsideEpoch)")
        }
    }
}

import Foundation
import LocusCore
import Testing
@testable import LocusNMEA

@Suite struct NMEADecoderTests {
    static let twoEpochs = NMEAEpochAssemblerTests.cycle
        + nmea("GPRMC,113259,A,3238.9145,N,10822.4482,W,005.0,246.3,181022,009.3,E")
        + nmea("GPGGA,113259,3238.9145,N,10822.4482,W,2,08,1.1,1577.9,M,-24.6,M,,")

    @Test func chunkingDoesNotChangeTheOutput() {
        let whole = decode(Self.twoEpochs).observations
        #expect(whole.fixes.count == 2)
        for chunk in [1, 2, 7, 64] { #expect(decode(Self.twoEpochs, chunk: chunk).observations == whole) }
    }

    @Test func withoutSkyViewsTheFixesAreTheSameAndGSVIsOnlyCounted() {
        var options = NMEADecoderOptions()
        options.skyViews = false
        let all = decode(Self.twoEpochs)
        let fixesOnly = decode(Self.twoEpochs, options: options)
        #expect(!all.observations.skies.isEmpty)
        #expect(fixesOnly.observations.skies.isEmpty)
        #expect(fixesOnly.observations == all.observations.filter { if case .fix = $0 { return true } else { return false } })
        #expect(fixesOnly.statistics.decoded == all.statistics.decoded)
        #expect(fixesOnly.statistics.skyViews == 0)
    }

    @Test func aCopiedDecoderIsIndependent() {
        let bytes = Array(Self.twoEpochs.utf8)
        let half = bytes.count / 2
        var a = NMEADecoder()
        var outA: [NMEAObservation] = []
        bytes[..<half].withUnsafeBytes { a.feed($0) { outA.append($0) } }
        var b = a // mid-sentence: the copy must not share the line buffer
        var outB: [NMEAObservation] = []
        // b writes first; with a shared buffer this would overwrite a's half sentence.
        Array("$GPGGA,garbage-garbage-garbage-garbage\n".utf8).withUnsafeBytes { b.feed($0) { outB.append($0) } }
        bytes[half...].withUnsafeBytes { a.feed($0) { outA.append($0) } }
        a.finish { outA.append($0) }
        #expect(outA == decode(Self.twoEpochs).observations)
        #expect(b.statistics.framing.truncated == 1)
    }

    @Test func countsProprietaryUnsupportedAndOutsideEpoch() {
        let text = nmea("GPGSV,1,1,01,05,06,110,19") + nmea("PGRME,7.6,M,41.7,M,42.4,M") + nmea("SDDBT,7.8,f,2.4,M,1.3,F")
            + nmea("PQVERNO,R,L70BGR03A05S,2019/10/09,21:12") + nmea("GPTXT,01,01,02,u-blox ag - www.u-blox.com")
        let st = decode(text).statistics
        #expect(st.outsideEpoch == 1)
        #expect(st.proprietary == 2)
        #expect(st.unsupported == 1)
        #expect(st.decoded == 1)
    }

    @Test func aLostGSVMessageDropsThatSequence() {
        let text = nmea("GPRMC,113258,A,3238.9148,N,10822.4466,W,005.3,247.1,181022,009.3,E")
            + nmea("GPGSV,3,1,11,02,60,319,36,05,77,132,38,11,29,052,29,12,46,186,46")
            + nmea("GPGSV,3,3,11,06,01,064,00,13,09,132,00,15,10,164,00")
        #expect(decode(text).observations.skies.isEmpty)
    }

    @Test func aisMixedLogStillGivesFixes() throws {
        let url = GpsdAgreementTests.fixtures.appendingPathComponent("ais-nmea.log")
        let (obs, st) = decode(try [UInt8](Data(contentsOf: url)))
        #expect(st.framing.encapsulated > 0)
        #expect(!obs.fixes.isEmpty)
        #expect(obs.fixes.allSatisfy { $0.0.source == "nmea" })
    }
}

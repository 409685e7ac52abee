/// GSV, GNSS Satellites in View. Fields: 1 number of messages, 2 message number,
/// 3 satellites in view, then up to four groups of (PRN, elevation °, azimuth °, SNR dB-Hz)
/// in fields 4–7, 8–11, 12–15, 16–19, then the signal id (NMEA 4.10+) after the last group.
struct GSV {
    struct Entry {
        var prn: Int
        var elevation: Double?
        var azimuth: Double?
        var snr: Double?
    }

    var messages: Int?
    var number: Int?
    var inView: Int?
    /// Signal id (hex digit), NMEA 4.10+.
    var signalId: Int?
    /// Number of satellite groups in this sentence.
    var groups: Int

    init(_ s: NMEASentenceView) {
        messages = s.int(1)
        number = s.int(2)
        inView = s.int(3)
        let data = s.fieldCount - 4 // fields after "satellites in view"
        groups = max(0, data / 4)
        if data >= 0, data % 4 == 1 {
            let f = s.field(s.fieldCount - 1)
            if f.count == 1 { signalId = Self.hexDigit(f[0]) }
        }
    }

    /// Satellite group `k` (0-based); nil when its PRN is empty (padding).
    static func entry(_ s: NMEASentenceView, _ k: Int) -> Entry? {
        let i = 4 + 4 * k
        guard let prn = s.int(i) else { return nil }
        return Entry(prn: prn, elevation: s.double(i + 1), azimuth: s.double(i + 2), snr: s.double(i + 3))
    }

    static func hexDigit(_ c: UInt8) -> Int? {
        switch c {
        case 0x30...0x39: return Int(c - 0x30)
        case 0x41...0x46: return Int(c - 0x41 + 10)
        default: return nil
        }
    }
}

import LocusCore

/// Realistic `obs.fix` envelopes: a receiver in Berlin moving slowly, with the fields a typical
/// receiver fills in; about 265 bytes on the wire.
enum FixSamples {
    static let topic = "obs.fix.gps0"
    static let start = EventTime(milliseconds: 1_715_932_800_000) // 2024-05-17T08:00:00Z

    static func fix(_ i: Int) -> Fix {
        let step = Double(i % 4096)
        // Receivers report about 1e-7 degree (1 cm); fields as a typical u-blox RMC+GGA+GST epoch gives them.
        return Fix(source: "gps0", mode: .threeD,
                   latitude: 52.520_008_1 + step * 1.7e-6, longitude: 13.404_954_3 + step * 2.3e-6,
                   altitudeMSL: 34.215 + Double(i % 7) * 0.1, speed: 1.234 + Double(i % 5) * 0.01,
                   course: 87.65, quality: .gps, satellitesUsed: 11 + i % 3, hdop: 0.91, horizontalAccuracy: 3.215)
    }

    static func body(_ i: Int) -> [UInt8] {
        EnvelopeCodec.encode(fix(i), producer: "gps0", seq: UInt64(i + 1), time: start.adding(seconds: Double(i) * 0.1))
    }
}

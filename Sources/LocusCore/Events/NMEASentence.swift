/// One NMEA 0183 sentence as a receiver sent it (`obs.nmea`, topic `obs.nmea.<source>`): for
/// programs that want the receiver's own words, such as gpsd clients watching with `nmea`.
/// Published only by a source asked to (`nmea-serial`'s `publish_sentences`).
public struct NMEASentence: Payload, Equatable {
    public static let eventType = "obs.nmea"
    public static let schemaVersion = 1

    public var source: String
    /// `$` to the checksum, without the line end.
    public var sentence: String

    public init(source: String, sentence: String) {
        self.source = source
        self.sentence = sentence
    }
}

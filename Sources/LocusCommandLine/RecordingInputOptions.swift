import ArgumentParser
import LocusCore
import LocusFormats

/// How `locus decode` and `locus replay` read a log: format, source id, fallback date.
struct RecordingInputOptions: ParsableArguments {
    @Option(name: .long, help: "Input format: nmea, gpsd, gpx, locus, or ble for `locus decode` (default: detect).")
    var format: String?

    @Option(name: .long, help: "Source id of decoded NMEA, gpsd and GPX input: payload source, producer and last topic segment.")
    var source: String = "gps0"

    @Option(name: .long, help: "NMEA only: UTC day (YYYY-MM-DD) for epochs before the log's first RMC/ZDA date.")
    var date: String?

    func validate() throws {
        if let format, RecordingFormat(rawValue: format) == nil, format != Self.bleFormat {
            throw ValidationError("unknown format '\(format)'; use one of nmea, gpsd, gpx, locus, ble")
        }
        if !Topic.isValidSegment(source) {
            throw ValidationError("'\(source)' is not a valid source id (one topic segment: lower-case letters, digits, '_', '-')")
        }
        if let date, Self.parseDate(date) == nil {
            throw ValidationError("--date must be a day as YYYY-MM-DD, not '\(date)'")
        }
    }

    /// BLE advertisement lines; only `locus decode` reads them (`BLELineDecoder`).
    static let bleFormat = "ble"

    /// The format asked for, if any (validated).
    var recordingFormat: RecordingFormat? { format.flatMap(RecordingFormat.init(rawValue:)) }

    /// The decoder options these give, with or without sky views.
    func decodeOptions(includeSky: Bool) -> DecodeOptions {
        DecodeOptions(source: source, fallbackDate: date.flatMap(Self.parseDate), includeSky: includeSky)
    }

    static func parseDate(_ text: String) -> EventTime? {
        guard text.utf8.count == 10 else { return nil }
        return EventTime(iso8601: text + "T00:00:00Z")
    }
}

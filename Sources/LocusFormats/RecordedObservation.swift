import LocusCore

/// One observation read from a recording, in file order: the topic a source would publish it
/// on, its event time, and the payload.
public struct RecordedObservation: Sendable {
    /// `obs.fix.<source>`, `obs.sky.<source>`, or a Locus recording's own topic.
    public var topic: String
    public var time: EventTime
    /// A `Fix` or `SkyView` for NMEA, gpsd and GPX; whatever the recording carried for Locus
    /// recordings (typed if `PayloadRegistry.core` knows the type, raw otherwise).
    public var payload: DecodedPayload
    /// The producer recorded in a Locus recording's envelope; nil for the other formats.
    public var producer: String?

    public init(topic: String, time: EventTime, payload: DecodedPayload, producer: String? = nil) {
        self.topic = topic
        self.time = time
        self.payload = payload
        self.producer = producer
    }

    public static func fix(_ fix: Fix, at time: EventTime) -> RecordedObservation {
        RecordedObservation(topic: "obs.fix." + fix.source, time: time, payload: .typed(fix))
    }

    public static func sky(_ sky: SkyView, at time: EventTime) -> RecordedObservation {
        RecordedObservation(topic: "obs.sky." + sky.source, time: time, payload: .typed(sky))
    }

    /// The payload as a fix, if it is one.
    public var fix: Fix? { payload.as(Fix.self) }
    /// The payload as a sky view, if it is one.
    public var sky: SkyView? { payload.as(SkyView.self) }
}

/// Settings shared by the readers.
public struct DecodeOptions: Sendable {
    /// Source id: `Fix.source`, `SkyView.source` and the last topic segment (not used for Locus recordings).
    public var source: String
    /// NMEA only: the UTC day to date epochs with until an RMC/ZDA gives one (`NMEADecoderOptions.fallbackDate`).
    public var fallbackDate: EventTime?
    /// Emit sky views (`obs.sky.*`); false drops them (and Locus recordings' `obs.sky.*` lines).
    public var includeSky: Bool

    public init(source: String = "gps0", fallbackDate: EventTime? = nil, includeSky: Bool = true) {
        self.source = source
        self.fallbackDate = fallbackDate
        self.includeSky = includeSky
    }
}

/// What a reader did, as named counters in a fixed order (for `locus decode --stats`).
public struct DecodeStatistics: Sendable, Equatable {
    public var bytes = 0
    public var fixes = 0
    public var skyViews = 0
    /// Other payloads passed through (Locus recordings).
    public var others = 0
    /// Format-specific counters (skipped items by reason and the like), in report order.
    public var details: [(name: String, value: Int)] = []

    public init() {}

    public static func == (a: DecodeStatistics, b: DecodeStatistics) -> Bool {
        a.bytes == b.bytes && a.fixes == b.fixes && a.skyViews == b.skyViews && a.others == b.others
            && a.details.map(\.name) == b.details.map(\.name) && a.details.map(\.value) == b.details.map(\.value)
    }

    /// The value of a detail counter (0 if absent).
    public subscript(detail name: String) -> Int {
        details.first { $0.name == name }?.value ?? 0
    }

    mutating func count(_ name: String, _ by: Int = 1) {
        if let i = details.firstIndex(where: { $0.name == name }) { details[i].value += by } else { details.append((name, by)) }
    }

    /// `fixes=… sky_views=… …`, one line.
    public var summary: String {
        var parts = ["bytes=\(bytes)", "fixes=\(fixes)", "sky_views=\(skyViews)"]
        if others > 0 { parts.append("other=\(others)") }
        parts += details.map { "\($0.name)=\($0.value)" }
        return parts.joined(separator: " ")
    }
}

import LocusCore
import LocusNMEA

/// Each observation written as the bus envelope a source publishes, then read back with the
/// hub's codec: `Payload` requires that `init(from:)` accepts what `write(to:)` wrote, and a
/// payload the hub cannot read is dropped as `bad_payload`. Writing touches every field and
/// turns NaN/infinity into absent fields, so odd values get exercised here too.
enum WireRoundTrip {
    static func check(_ o: NMEAObservation) {
        switch o {
        case let .fix(f, t):
            let back = decode(EnvelopeCodec.encode(f, producer: f.source, seq: 1, time: t), time: t, as: Fix.self)
            require(back.source == f.source && back.mode == f.mode, "fix source/mode changed on the wire")
            require(back.quality == f.quality && back.satellitesUsed == f.satellitesUsed,
                    "fix quality/satellites changed on the wire")
            require((back.latitude == nil) == (f.latitude == nil) || !(f.latitude?.isFinite ?? true),
                    "fix latitude lost on the wire")
        case let .sky(s, t):
            let back = decode(EnvelopeCodec.encode(s, producer: s.source, seq: 1, time: t), time: t, as: SkyView.self)
            require(back.source == s.source, "sky source changed on the wire")
            require(back.satellites.map(\.prn) == s.satellites.map(\.prn)
                    && back.satellites.map(\.used) == s.satellites.map(\.used)
                    && back.satellites.map(\.constellation) == s.satellites.map(\.constellation),
                    "sky satellites changed on the wire")
        }
    }

    private static func decode<P: Payload>(_ bytes: [UInt8], time: EventTime, as type: P.Type) -> P {
        let envelope: Envelope
        do {
            envelope = try EnvelopeCodec.decode(bytes, registry: .core, requireKnownType: true)
        } catch {
            fatalError("invariant broken: the hub cannot read an emitted \(P.eventType): \(error)\n"
                       + String(decoding: bytes, as: UTF8.self))
        }
        require(envelope.time == time, "event time \(time.milliseconds) ms came back as \(envelope.time.milliseconds) ms")
        guard let p = envelope.payload.as(P.self) else {
            fatalError("invariant broken: \(P.eventType) came back untyped: " + String(decoding: bytes, as: UTF8.self))
        }
        return p
    }
}

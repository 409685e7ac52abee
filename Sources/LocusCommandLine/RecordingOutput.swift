#if canImport(Glibc)
import Glibc
#endif
import LocusCore
import LocusFormats

/// Writes observations to standard output as recording lines, numbering each producer's
/// envelopes from 1 as an `EventPublisher` would. The lines are encoded straight into one
/// reused buffer and written with write(2) in large chunks: `locus decode` spends most of its
/// time here, so nothing is copied per message.
final class RecordingOutput {
    struct WriteError: Error {
        var code: Int32
        var reason: String { String(cString: strerror(code)) }
    }

    private var buffer = JSONWriter(capacity: RecordingOutput.flushThreshold + 65_536)
    private var sequences: [String: UInt64] = [:]
    private static let flushThreshold = 1 << 18
    private let fd: Int32

    init(fd: Int32 = 1) { self.fd = fd }

    /// Appends `obs` as the next message of its producer (`defaultProducer` when the
    /// observation names none).
    func write(_ obs: RecordedObservation, defaultProducer: String) throws {
        let producer = obs.producer ?? defaultProducer
        let seq = (sequences[producer] ?? 0) + 1
        sequences[producer] = seq
        let envelope = Envelope(type: obs.payload.eventType, version: obs.payload.schemaVersion, producer: producer,
                                seq: seq, time: obs.time, payload: obs.payload)
        RecordingLine.write(topic: obs.topic, into: &buffer) { EnvelopeCodec.encode(envelope, into: &$0) }
        if buffer.byteCount >= Self.flushThreshold { try flush() }
    }

    /// Writes out what is buffered.
    func flush() throws {
        try buffer.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                #if canImport(Glibc)
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                #else
                let n = Darwin.write(fd, raw.baseAddress! + offset, raw.count - offset)
                #endif
                if n < 0 {
                    if errno == EINTR { continue }
                    throw WriteError(code: errno)
                }
                offset += n
            }
        }
        buffer.removeAll()
    }
}

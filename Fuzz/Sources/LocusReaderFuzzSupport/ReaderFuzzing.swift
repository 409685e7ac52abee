import LocusCore
import LocusFormats

/// Traps with `message` when `condition` is false (`fatalError`, so it holds in release builds;
/// libFuzzer reports the trap as a crash and saves the input).
@inline(__always)
public func require(_ condition: Bool, _ message: @autoclosure () -> String,
                    file: StaticString = #fileID, line: UInt = #line) {
    if !condition { fatalError("invariant broken: \(message())", file: file, line: line) }
}

/// What one recording reader made of one input.
public struct ReaderRun {
    public var observations: [String] = []
    public var statistics: DecodeStatistics?
    public var error: String?
}

/// One reader over one input: `read` decodes a `ByteInput`, calling `emit` per observation, and
/// returns the reader's counters.
public typealias RecordingRead = (ByteInput, (RecordedObservation) throws -> Void) throws -> DecodeStatistics

/// The per-input check shared by the recording readers' fuzz targets. The input is read whole,
/// then delivered in input-derived pieces (as a pipe might cut it); both runs must agree, any
/// error must be a `FormatInputError` (an error value, not a trap), and every observation must
/// be a message the hub accepts: finite numbers, a position on the globe, a valid topic, and an
/// envelope that the codec reads back.
public func fuzzRecordingReader(_ data: UnsafePointer<UInt8>?, _ size: Int, read: RecordingRead) -> CInt {
    let bytes = size > 0 ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    let whole = run(ByteInput(bytes: bytes), read: read)
    let pieces = run(ByteInput(chunks: ChunkCutter.cut(bytes)), read: read)
    require(whole.error == pieces.error, "chunked input changed the outcome: \(whole.error ?? "ok") vs \(pieces.error ?? "ok")")
    require(whole.observations == pieces.observations,
            "chunked input changed the observations (\(whole.observations.count) vs \(pieces.observations.count))")
    if whole.error == nil { require(whole.statistics == pieces.statistics, "chunked input changed the counters") }
    return 0
}

func run(_ input: ByteInput, read: RecordingRead) -> ReaderRun {
    var result = ReaderRun()
    do {
        result.statistics = try read(input) { o in
            check(o)
            result.observations.append(o.topic + " " + String(decoding: envelopeBytes(o), as: UTF8.self))
        }
    } catch let e as FormatInputError {
        result.error = "\(e)"
    } catch {
        require(false, "a reader threw something other than FormatInputError: \(error)")
    }
    return result
}

/// The envelope a `replay` source would publish for `o`.
func envelopeBytes(_ o: RecordedObservation) -> [UInt8] {
    let outlet = MemoryOutlet()
    let publisher = EventPublisher(producer: "fuzz", outlet: outlet)
    switch o.payload {
    case .typed(let p): publisher.publish(p, topic: o.topic, time: o.time)
    case .raw(let raw): publisher.publish(raw: raw, topic: o.topic, time: o.time)
    }
    return outlet.take().first?.body ?? []
}

func check(_ o: RecordedObservation) {
    require(Topic.isValid(o.topic) || !o.topic.hasPrefix("obs."), "observation on an invalid topic '\(o.topic)'")
    if let f = o.fix {
        if let lat = f.latitude { require(lat.isFinite && abs(lat) <= 90, "latitude \(lat)") }
        if let lon = f.longitude { require(lon.isFinite && abs(lon) <= 180, "longitude \(lon)") }
        for (name, v) in [("alt_msl", f.altitudeMSL), ("alt_hae", f.altitudeHAE), ("speed", f.speed), ("course", f.course),
                          ("hdop", f.hdop), ("h_accuracy", f.horizontalAccuracy), ("v_accuracy", f.verticalAccuracy)] {
            if let v { require(v.isFinite, "\(name) \(v)") }
        }
    }
    // What a source would publish must be what the hub and every subscriber can read back.
    let bytes = envelopeBytes(o)
    do {
        _ = try EnvelopeCodec.decode(bytes, registry: .core)
    } catch {
        require(false, "an emitted observation does not decode: \(error): \(String(decoding: bytes, as: UTF8.self))")
    }
}

/// Cuts an input into pieces at places derived from its own bytes (FNV-1a of the input seeds a
/// small generator): many tiny pieces, some larger.
enum ChunkCutter {
    static func cut(_ bytes: [UInt8]) -> [[UInt8]] {
        var state: UInt64 = 0xcbf29ce484222325
        for b in bytes { state = (state ^ UInt64(b)) &* 0x100000001b3 }
        var pieces: [[UInt8]] = []
        var start = 0
        while start < bytes.count {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let r = Int(truncatingIfNeeded: state >> 33)
            let length = r % 4 == 0 ? 1 + r % 64 : 1 + r % 4
            pieces.append(Array(bytes[start..<min(bytes.count, start + length)]))
            start += length
        }
        return pieces
    }
}

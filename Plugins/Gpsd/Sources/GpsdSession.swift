import LocusCore
import LocusFormats

/// Counts of what the source received and did, for logs and tests.
public struct GpsdCounters: ZeroedCounters, Equatable {
    public var lines = 0
    /// Lines that were not a JSON object with a `class` (skipped).
    public var malformed = 0
    /// Lines longer than the line buffer (dropped up to the next newline).
    public var oversized = 0
    public var tpv = 0
    /// TPVs without `time`: no event time, so no fix (skipped).
    public var tpvWithoutTime = 0
    public var sky = 0
    /// SKYs with satellites but without `time`, before any TPV time on the connection (skipped).
    public var skyWithoutTime = 0
    public var gst = 0
    /// Reports from a device other than the configured one.
    public var otherDevice = 0
    /// Reports of classes Locus does not use.
    public var ignored = 0
    public var fixesPublished = 0
    /// Fixes whose date is implausible against the host clock or the previous fixes
    /// (`FixTimePlausibility`); they are published all the same, and `status` says why.
    public var implausibleTime = 0
    public var skyViewsPublished = 0
    public var connections = 0

    public init() {}
}

/// The per-line logic of the source, free of sockets and clocks: gpsd JSON lines in, Locus
/// events out. One per source; `connectionStarted()` clears what belongs to one connection.
public struct GpsdSession {
    public enum Output: Equatable {
        case fix(Fix, EventTime)
        case sky(SkyView, EventTime)
    }

    /// What a line did apart from outputs, for the source's log and status.
    public enum Note: Equatable {
        case none
        /// A TPV from the selected device (with or without time): gpsd is delivering data.
        case tpvSeen
        case version(String)
        case devices([String])
        case gpsdError(String)
        case malformed(String)
    }

    public var source: String { mapper.source }
    public var device: String? { mapper.device }
    public var counters = GpsdCounters()
    /// The latest SKY, GST and TPV time of the selected device on this connection, and the
    /// mapping (shared with `locus decode` of gpsd JSON).
    var mapper: GpsdObservationMapper
    /// Checks each fix's date (`max_time_error`); kept across connections.
    var timeCheck: FixTimePlausibility
    /// The host clocks' reading for the lines being handled, taken by the source as they
    /// arrive; nil: fix times are not checked.
    public var hostTime: HostTime?
    /// Set by the first fix with an implausible date (the verdict's reason, for `status`), and
    /// kept until a plausible fix clears it: one report per episode, not one per fix.
    public private(set) var implausibleTime: String?

    public init(source: String, device: String?, maxTimeError: Double = 0) {
        mapper = GpsdObservationMapper(source: source, device: device)
        timeCheck = FixTimePlausibility(maxError: maxTimeError)
    }

    public mutating func connectionStarted() {
        mapper.reset()
        counters.connections += 1
    }

    /// Handles one line (without its newline); appends events to publish to `out`.
    public mutating func handle(line: UnsafeBufferPointer<UInt8>, into out: inout [Output]) -> Note {
        // Blank lines (a CR of CR-LF, keep-alives) are not reports.
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) { return .none }
        counters.lines += 1
        let report: GpsdReport
        do {
            report = try GpsdReport.parse(line)
        } catch {
            counters.malformed += 1
            return .malformed("\(error)")
        }
        return handle(report, into: &out)
    }

    public mutating func handle(line: String, into out: inout [Output]) -> Note {
        let bytes = Array(line.utf8)
        return bytes.withUnsafeBufferPointer { handle(line: $0, into: &out) }
    }

    public mutating func handle(_ report: GpsdReport, into out: inout [Output]) -> Note {
        switch report {
        case .data(let data):
            return handle(data, into: &out)
        case .version(let release, let major, let minor):
            return .version("\(release ?? "?") (protocol \(major.map(String.init) ?? "?").\(minor.map(String.init) ?? "?"))")
        case .devices(let paths):
            return .devices(paths)
        case .device, .watch:
            return .none
        case .error(let message):
            return .gpsdError(message)
        }
    }

    mutating func handle(_ data: GpsdDataReport, into out: inout [Output]) -> Note {
        var note = Note.none
        switch data {
        case .tpv: counters.tpv += 1
        case .sky: counters.sky += 1
        case .gst: counters.gst += 1
        case .other: break
        }
        switch mapper.map(data) {
        case .fix(let fix, let time):
            out.append(.fix(fix, time))
            counters.fixesPublished += 1
            note = .tpvSeen
            if let hostTime {
                switch timeCheck.check(time, host: hostTime) {
                case .plausible:
                    implausibleTime = nil
                case .implausible(let why):
                    counters.implausibleTime += 1
                    if implausibleTime == nil { implausibleTime = why }
                }
            }
        case .sky(let sky, let time):
            out.append(.sky(sky, time))
            counters.skyViewsPublished += 1
        case .tpvWithoutTime:
            // gpsd is delivering data, if no fix yet.
            counters.tpvWithoutTime += 1
            note = .tpvSeen
        case .skyWithoutTime: counters.skyWithoutTime += 1
        case .otherDevice: counters.otherDevice += 1
        case .ignored: counters.ignored += 1
        case .kept: break
        }
        return note
    }
}

/// Splits a byte stream into lines, holding at most `maxLine` bytes of an unfinished line: a
/// longer line is dropped up to its newline (and counted), so a peer that never sends a newline
/// cannot make the buffer grow without bound.
public struct LineSplitter {
    public let maxLine: Int
    private var pending: [UInt8] = []
    private var discarding = false
    public private(set) var oversized = 0

    public init(maxLine: Int = 256 * 1024) {
        self.maxLine = maxLine
        pending.reserveCapacity(4096)
    }

    public mutating func reset() {
        pending.removeAll(keepingCapacity: true)
        discarding = false
    }

    /// Feeds `chunk`, calling `body` with each complete line (without `\n`).
    public mutating func feed(_ chunk: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        var start = 0
        var i = 0
        let n = chunk.count
        while i < n {
            if chunk[i] == 0x0A {
                if discarding {
                    discarding = false
                } else if pending.isEmpty {
                    if i - start > maxLine { oversized += 1 } else { body(UnsafeBufferPointer(rebasing: chunk[start..<i])) }
                } else {
                    pending.append(contentsOf: chunk[start..<i])
                    if pending.count > maxLine {
                        oversized += 1
                    } else {
                        pending.withUnsafeBufferPointer { body($0) }
                    }
                    pending.removeAll(keepingCapacity: true)
                }
                start = i + 1
            }
            i += 1
        }
        if start < n && !discarding {
            pending.append(contentsOf: chunk[start..<n])
            if pending.count > maxLine {
                oversized += 1
                discarding = true
                pending.removeAll(keepingCapacity: true)
            }
        }
    }
}

import LocusCore

/// Turns gpsd's reports, in the order gpsd sent them, into the fixes and sky views a source
/// publishes. The gpsd source (live, one per connection) and `GpsdJSONReader` (a recorded
/// `gpspipe -w` stream) both run their reports through it, so `locus decode` of a recording
/// gives what the source published when it was recorded.
///
/// - A TPV with a `time` becomes a fix (`GpsdMapping.fix`), with the DOPs and used-satellite
///   count of the latest SKY and the accuracies of the latest GST if that is of the same epoch.
///   A TPV without `time` has no event time and gives nothing.
/// - A SKY replaces the latest SKY. With a `satellites` member it also becomes a sky view, at
///   its `time`, or (gpsd 3.22 sends none) the latest TPV's; before any time is known it gives
///   none. Without `satellites` it only carries DOPs (gpsd sends such SKYs between sky views)
///   and gives no sky view: it does not say the sky is empty.
/// - A GST is kept for the TPV of its epoch, which gpsd sends after it.
/// - With `device` set, reports of other devices are passed over.
public struct GpsdObservationMapper {
    /// What one report gave.
    public enum Outcome: Equatable {
        case fix(Fix, EventTime)
        case sky(SkyView, EventTime)
        /// Kept for later fixes only: a GST, or a SKY without satellites.
        case kept
        case tpvWithoutTime
        /// A SKY with satellites and no `time` before any TPV time.
        case skyWithoutTime
        /// A TPV, SKY or GST of a device other than `device`.
        case otherDevice
        /// A class that carries no location data.
        case ignored
    }

    /// `Fix.source` and `SkyView.source` of what is made.
    public let source: String
    /// Only reports of this device are used; nil: every device's.
    public let device: String?
    var lastSky: GpsdSky?
    var lastGST: GpsdGST?
    var lastTPVTime: EventTime?

    public init(source: String, device: String? = nil) {
        self.source = source
        self.device = device
    }

    /// Forgets the latest SKY, GST and TPV time (a new connection to gpsd is a new stream).
    public mutating func reset() {
        lastSky = nil
        lastGST = nil
        lastTPVTime = nil
    }

    public mutating func map(_ report: GpsdDataReport) -> Outcome {
        switch report {
        case .tpv(let tpv):
            guard accepts(tpv.device) else { return .otherDevice }
            guard let time = tpv.time else { return .tpvWithoutTime }
            lastTPVTime = time
            return .fix(GpsdMapping.fix(from: tpv, source: source, gst: lastGST, sky: lastSky), time)
        case .sky(let sky):
            guard accepts(sky.device) else { return .otherDevice }
            lastSky = sky
            guard sky.satellites != nil else { return .kept }
            guard let time = sky.time ?? lastTPVTime else { return .skyWithoutTime }
            return .sky(GpsdMapping.skyView(from: sky, source: source), time)
        case .gst(let gst):
            guard accepts(gst.device) else { return .otherDevice }
            lastGST = gst
            return .kept
        case .other:
            return .ignored
        }
    }

    func accepts(_ reportDevice: String?) -> Bool {
        guard let device else { return true }
        return reportDevice == device
    }
}

import LocusCore

/// What the map page shows: the daemon's live bus, or (`locus view`) a finished recording with
/// the first and last event time it holds (nil when it holds none).
public enum PageMode: Sendable, Equatable {
    case live
    case recording(ClosedRange<EventTime>?)
}

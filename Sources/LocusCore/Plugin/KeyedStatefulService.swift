/// A service whose memory is many small records (one per fence, one per device) rather than one
/// value: the runtime commits only the records a batch changed, so a server watching 10,000
/// fences for 10,000 devices writes a few rows per batch, not its whole state.
///
/// Everything `StatefulService` asks holds here too (docs/writing-plugins.md, "State"): the
/// records hold everything `receive` and `handle` read that came from earlier messages or
/// commands, nothing from configuration, and restoring them gives back exactly the instance
/// they were taken from.
///
/// An implementer must:
/// - return from `takeStateChanges` every record changed since the last call (or since
///   `restoreState`), and nil for each record deleted; a key is any text, stable for the fact
///   it holds;
/// - in `restoreState`, rebuild the instance from all records committed so far (a fresh
///   instance, before its first message), skipping records that no longer fit the
///   configuration (a fence whose shape changed), and report those as deleted by the next
///   `takeStateChanges`.
public protocol KeyedStatefulService: ServicePlugin {
    /// Records changed since the last call: key to encoded value, nil when the record was deleted.
    mutating func takeStateChanges() throws -> [(key: String, value: [UInt8]?)]
    /// Puts the committed records back into a fresh instance. Throws when they cannot be read.
    mutating func restoreState(_ records: [String: [UInt8]]) throws
    /// False when the configuration asks for no state across restarts (`persist: false`): the
    /// runtime then keeps nothing, and every start is a fresh one. Default: true.
    var keepsState: Bool { get }
    /// Key prefixes of records that change with nearly every message (a device's last fix): the
    /// runtime writes those of a batch as one row of a log, not one row each, and holds them in
    /// memory to compact the log. Leave out records that are large or many and change seldom.
    /// Default: none.
    var loggedRecordPrefixes: [String] { get }
}

extension KeyedStatefulService {
    public var keepsState: Bool { true }
    public var loggedRecordPrefixes: [String] { [] }
}

/// A file the runtime reads for a service (a service does no I/O of its own).
public struct WatchedFile: Sendable, Hashable {
    /// The path, resolved against the config file's directory (`PluginSetup.resolvePath`).
    public var path: String
    /// The config key that names the file, for errors (`file`).
    public var configKey: String
    /// Seconds of wall time between two checks for a change (size, modification time, inode).
    public var checkInterval: Double
    /// A larger file is refused: read errors say so, and nothing of it is read.
    public var maxBytes: Int

    public init(path: String, configKey: String, checkInterval: Double, maxBytes: Int = 64 << 20) {
        self.path = path
        self.configKey = configKey
        self.checkInterval = checkInterval
        self.maxBytes = maxBytes
    }
}

/// Why a watched file could not be read, or why its service refused it; its text names no path
/// (the caller adds it).
public struct WatchedFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A service fed files by the runtime, as `region`'s GeoJSON `file:`: the runtime reads them,
/// watches them, and hands their bytes over, so the service stays a state machine without I/O.
///
/// - `loadFile` is called on every instance the runtime builds (the first, and each one after
///   a restart), after `init` and before any committed state is restored or any message
///   delivered: the file is then part of the configuration. What it throws is a config error
///   (`locus check` refuses the file first, with the same text).
/// - While the service runs, the runtime checks each file every `checkInterval` seconds of wall
///   time and calls `fileChanged` with the new bytes (or why they could not be read) on the
///   service's task, between two batches of messages, the way a control command is run: its
///   events are published in order, and a service that keeps state has the changes committed
///   with them. Stamp events with the time of the last message received, never the wall clock.
///   A change that is refused must leave the service as it was (log and count it).
public protocol FileFedService: ServicePlugin {
    /// The files this instance reads; the same for every instance built from one config.
    var watchedFiles: [WatchedFile] { get }
    /// `file` as it is when the instance is built. Throw (`ConfigValueError` or any error) to
    /// refuse it: the plugin does not start.
    mutating func loadFile(_ file: WatchedFile, contents: [UInt8]) throws
    /// `file` changed while the service runs: its new bytes, or why they could not be read.
    mutating func fileChanged(_ file: WatchedFile, contents: Result<[UInt8], WatchedFileError>,
                              output: inout ServiceOutput) throws
}

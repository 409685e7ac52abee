import Logging

/// What Hummingbird logs while it handles one connection (not its routes' logs), with errors
/// lowered to debug. Hummingbird logs a connection that closes before its first request was
/// answered as an error ("Error handling upgrade result": the client left, or one of the
/// gateway's guards closed it for a head too large or too slow, an idle or a refused
/// connection). Those are the client's doing, counted in `WebCounters`, and any client could
/// fill the daemon's log with them; at debug level they are still there to investigate.
struct ConnectionLogHandler: LogHandler {
    var base: any LogHandler

    var metadataProvider: Logger.MetadataProvider? {
        get { base.metadataProvider }
        set { base.metadataProvider = newValue }
    }

    var metadata: Logger.Metadata {
        get { base.metadata }
        set { base.metadata = newValue }
    }

    var logLevel: Logger.Level {
        get { base.logLevel }
        set { base.logLevel = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { base[metadataKey: key] }
        set { base[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        guard event.level >= .error else { return base.log(event: event) }
        // Logger checked the original level against logLevel; the lowered one is checked here.
        guard base.logLevel <= .debug else { return }
        var lowered = event
        lowered.level = .debug
        base.log(event: lowered)
    }

    /// `logger` with this handler around its own.
    static func lowering(_ logger: Logger) -> Logger {
        var l = logger
        l.handler = ConnectionLogHandler(base: logger.handler)
        return l
    }
}

/// Where the hub listens and what it accepts.
public struct HubConfiguration: Sendable, Equatable {
    /// In-process ingest endpoint (XSUB), always bound: in-process publishers connect here.
    public static let inprocIngest = "inproc://locus-ingest"
    /// In-process publish endpoint (XPUB), always bound: in-process subscribers connect here.
    public static let inprocPublish = "inproc://locus-publish"

    /// Extra endpoints where publishers in other processes connect (the hub's XSUB binds them).
    public var ingestEndpoints: [String]
    /// Extra endpoints where subscribers in other processes connect (the hub's XPUB binds them).
    public var publishEndpoints: [String]
    /// The hub's keys of config.yaml (message size, high-water mark, payload checks, outside
    /// clients' rates and subscriptions), as declared.
    public var limits: HubLimits
    /// Endpoints (of either list) bound with CURVE, and how. A `ZAPHandler` must serve the
    /// context before the hub starts.
    public var curve: [String: CurveServer] = [:]
    /// What publishers connected over ipc or tcp may not publish (nil: anything valid).
    public var outsidePublishers: OutsidePublisherPolicy?

    /// The in-process endpoints are always bound in addition to the ones given here.
    public init(ingestEndpoints: [String] = [], publishEndpoints: [String] = [], limits: HubLimits = HubLimits()) {
        self.ingestEndpoints = ingestEndpoints
        self.publishEndpoints = publishEndpoints
        self.limits = limits
    }

    /// Every endpoint the XSUB binds: the in-process one first, duplicates removed.
    public var allIngestEndpoints: [String] { Self.unique([Self.inprocIngest] + ingestEndpoints) }
    /// Every endpoint the XPUB binds: the in-process one first, duplicates removed.
    public var allPublishEndpoints: [String] { Self.unique([Self.inprocPublish] + publishEndpoints) }

    /// libzmq's ZMQ_MAXMSGSIZE for the ingest socket: four times `maxMessageBytes`, at least
    /// 64 MiB, so that oversized messages (a 10 MB one included) are dropped and counted by the
    /// hub as `too_large`, while a peer sending something absurd (memory exhaustion) gets its
    /// connection dropped by libzmq — which cannot skip a message mid-stream and says nothing.
    public var transportMessageLimit: Int {
        limits.maxMessageBytes > Int.max / 4 ? -1 : max(limits.maxMessageBytes * 4, 64 << 20)
    }

    /// What one publisher connection may have waiting in the hub's ingest queue, in bytes.
    /// ZeroMQ bounds that queue in messages only: at `highWaterMark` (100,000) messages of up
    /// to `maxMessageBytes` (256 KiB) one client sending faster than the hub checks could make
    /// it hold gigabytes (issue 29: 200 KB messages took the daemon past 1 GB).
    public static let ingestQueueBytes = 32 << 20
    /// The fewest messages the ingest queue holds whatever `maxMessageBytes` is.
    public static let minimumIngestQueue = 16

    /// ZMQ_RCVHWM of the ingest socket: `highWaterMark`, but no more messages of
    /// `maxMessageBytes` than fit in `ingestQueueBytes` (128 at the defaults), at least
    /// `minimumIngestQueue`; 0 (unlimited) when `highWaterMark` is. A publisher that sends
    /// faster than the hub takes its messages then waits in its own queue (a PUB socket drops
    /// there, an XPUB with ZMQ_XPUB_NODROP blocks). In-process publishers are not affected:
    /// over inproc ZeroMQ adds the sender's own `highWaterMark` to this.
    public var ingestHighWaterMark: Int {
        guard limits.highWaterMark > 0 else { return 0 }
        return min(limits.highWaterMark, max(Self.minimumIngestQueue, Self.ingestQueueBytes / max(limits.maxMessageBytes, 1)))
    }

    /// Throws an `EndpointError` or a `LocusBusError` describing the first problem found.
    public func validate() throws {
        for e in ingestEndpoints + publishEndpoints { _ = try Endpoint.validate(e) }
        let overlap = Set(allIngestEndpoints).intersection(allPublishEndpoints)
        if let e = overlap.first { throw LocusBusError("\(e) is configured for both ingest and publish") }
        guard limits.maxMessageBytes > 0 else { throw LocusBusError("maxMessageBytes must be positive, not \(limits.maxMessageBytes)") }
        guard limits.highWaterMark >= 0 else { throw LocusBusError("highWaterMark must be 0 (unlimited) or positive, not \(limits.highWaterMark)") }
    }

    private static func unique(_ list: [String]) -> [String] {
        var seen = Set<String>()
        return list.filter { seen.insert($0).inserted }
    }
}

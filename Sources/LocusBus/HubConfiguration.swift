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
    /// Largest message body the hub forwards; larger ones are dropped as `too_large`.
    public var maxMessageBytes: Int
    /// Per-connection queue limit in messages on both sides of the hub; 0 = unlimited.
    /// A subscriber that falls this far behind loses messages (PUB/SUB semantics); the hub
    /// itself never waits for a slow subscriber.
    public var highWaterMark: Int
    /// Also decode payloads of registered types, to count `bad_payload`. Off by default: the hub
    /// then checks the envelope header, the payload's JSON grammar and that the type is known,
    /// and subscribers count payloads that do not decode (about twice the validation cost).
    public var validatePayloads: Bool
    /// Subscriptions outside subscribers may hold (per connection and in all).
    public var subscriptionLimits = SubscriptionLimits()
    /// Endpoints (of either list) bound with CURVE, and how. A `ZAPHandler` must serve the
    /// context before the hub starts.
    public var curve: [String: CurveServer] = [:]
    /// What publishers connected over ipc or tcp may not publish (nil: anything valid).
    public var outsidePublishers: OutsidePublisherPolicy?
    /// Messages per second one outside publisher connection may send on average (bursts of
    /// twice that); more are dropped as `rate_limit`. 0 = no limit.
    public var ingestRatePerClient: Double = 0

    /// The in-process endpoints are always bound in addition to the ones given here.
    public init(ingestEndpoints: [String] = [], publishEndpoints: [String] = [],
                maxMessageBytes: Int = 262_144, highWaterMark: Int = 100_000, validatePayloads: Bool = false) {
        self.ingestEndpoints = ingestEndpoints
        self.publishEndpoints = publishEndpoints
        self.maxMessageBytes = maxMessageBytes
        self.highWaterMark = highWaterMark
        self.validatePayloads = validatePayloads
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
        maxMessageBytes > Int.max / 4 ? -1 : max(maxMessageBytes * 4, 64 << 20)
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
        guard highWaterMark > 0 else { return 0 }
        return min(highWaterMark, max(Self.minimumIngestQueue, Self.ingestQueueBytes / max(maxMessageBytes, 1)))
    }

    /// Throws an `EndpointError` or a `LocusBusError` describing the first problem found.
    public func validate() throws {
        for e in ingestEndpoints + publishEndpoints { _ = try Endpoint.validate(e) }
        let overlap = Set(allIngestEndpoints).intersection(allPublishEndpoints)
        if let e = overlap.first { throw LocusBusError("\(e) is configured for both ingest and publish") }
        guard maxMessageBytes > 0 else { throw LocusBusError("maxMessageBytes must be positive, not \(maxMessageBytes)") }
        guard highWaterMark >= 0 else { throw LocusBusError("highWaterMark must be 0 (unlimited) or positive, not \(highWaterMark)") }
    }

    private static func unique(_ list: [String]) -> [String] {
        var seen = Set<String>()
        return list.filter { seen.insert($0).inserted }
    }
}

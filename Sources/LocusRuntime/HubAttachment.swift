import LocusBus
import LocusCore
import Logging

/// Attaches plugin runners to the in-process hub over `inproc://` sockets.
/// Immutable after init: every stored property is a `let` of a thread-safe type.
final class HubAttachment: BusAttachment, @unchecked Sendable {
    let context: ZMQContext
    let hub: Hub
    let registry: PayloadRegistry
    let highWaterMark: Int
    let subscriptionBuffer: Int
    let logger: Logger

    init(context: ZMQContext, hub: Hub, registry: PayloadRegistry, highWaterMark: Int,
         subscriptionBuffer: Int = RuntimeSettings().subscriptionBuffer, logger: Logger) {
        self.context = context
        self.hub = hub
        self.registry = registry
        self.highWaterMark = highWaterMark
        self.subscriptionBuffer = subscriptionBuffer
        self.logger = logger
    }

    func makeOutlet(for producer: String) throws -> any ClosableOutlet {
        let outlet = try SocketOutlet(context: context, endpoint: HubConfiguration.inprocIngest,
                                      highWaterMark: highWaterMark, logger: logger)
        return OutletBox(outlet: outlet)
    }

    func subscribe(_ prefixes: [String], for consumer: String) throws -> any BusFeed {
        let subscription = SocketSubscription(context: context, endpoint: HubConfiguration.inprocPublish,
                                              prefixes: prefixes, registry: registry, logger: logger,
                                              highWaterMark: highWaterMark, bufferLimit: subscriptionBuffer)
        try subscription.start(hub: hub)
        return FeedBox(subscription: subscription)
    }
}

struct OutletBox: ClosableOutlet {
    let outlet: SocketOutlet
    func send(topic: String, body: [UInt8]) { outlet.send(topic: topic, body: body) }
    func close() { outlet.close(drainTimeout: 1.0) }
    var sendStatistics: OutletStatistics? { OutletStatistics(sent: outlet.sentCount, dropped: outlet.droppedCount) }
}

struct FeedBox: BusFeed {
    let subscription: SocketSubscription
    var queue: FeedQueue { subscription.queue }
    func stop(drain: Bool) { subscription.stop(drain: drain) }
    var statistics: SubscriptionStatistics? { subscription.statistics }
}

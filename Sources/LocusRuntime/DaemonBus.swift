import Foundation
import LocusBus
import LocusCore
import LocusStore
import Logging

/// The daemon's bus parts, started in this order before any plugin: the ZAP handler (CURVE),
/// the journal, the hub, the catch-up and control servers and the restricted publishers, then
/// the ipc sockets' groups. Each part's teardown goes into `parts` as it starts, so that one
/// `stopAll` stops them newest first (the caller's, at shutdown or on any failure).
struct DaemonBus {
    var zap: ZAPHandler?
    var journal: EventJournal?
    var hub: Hub
    var catchup: CatchupServer?
    var control: ControlServer
    var restricted: [RestrictedPublisher]

    /// Starts every part of `configuration.hub`. On a throw, the parts already started are in
    /// `parts` for the caller to stop.
    static func start(_ configuration: LocusConfiguration, registry: PayloadRegistry, context: ZMQContext,
                      commands: ControlCommands, logger: Logger, parts: StartedParts) throws -> DaemonBus {
        var hubConfig = HubConfiguration(
            ingestEndpoints: configuration.hub.ingest,
            publishEndpoints: configuration.hub.publish.filter { configuration.hub.restricted[$0] == nil },
            limits: configuration.hub.limits)
        hubConfig.outsidePublishers = Daemon.outsidePublisherPolicy(configuration)
        // Private directories before anything is created in them; the sockets' groups are resolved now.
        let socketGroups = try Daemon.prepareDirectories(configuration.hub)
        // CURVE endpoints: keys read and the authentication handler serving before any bind.
        let security = try EndpointSecurity.load(configuration.hub.curve)
        hubConfig.curve = security.servers
        let zap = security.isEmpty ? nil : ZAPHandler(context: context, logger: Logger(label: "locus.curve"))
        for (domain, keys) in security.authorized { zap?.authorize(domain: domain, keys: keys) }
        if let zap {
            try zap.start()
            parts.started(zap.stop)
        }
        let journal = try configuration.hub.journal.map { settings in
            try EventJournal(directory: configuration.hub.stateDirectory + "/journal", settings: settings)
        }
        if let journal {
            parts.started(journal.close)
            let s = journal.statistics
            if s.recoveredBytes > 0 {
                logger.warning("cut a half-written record off the journal's end (a kill during a write, or a write that failed: such records were counted as journal.not_written when forwarded)",
                               metadata: ["directory": "\(journal.directory)", "bytes": "\(s.recoveredBytes)"])
            }
            logger.info("journal open", metadata: ["directory": "\(journal.directory)", "bytes": "\(s.bytes)",
                                                   "newest_index": "\(s.newestIndex.map(String.init) ?? "none")"])
        }
        let hub = Hub(configuration: hubConfig, registry: registry, context: context, logger: Logger(label: "locus.hub"),
                      journal: journal)
        try hub.start()
        parts.started(hub.stop)
        let catchup = journal.map { CatchupServer(endpoints: configuration.hub.catchup, curve: security.servers, context: context, hub: hub, journal: $0,
                                                  logger: Logger(label: "locus.catchup")) }
        if let catchup {
            try catchup.start()
            parts.started(catchup.stop)
        }
        let control = ControlServer(context: context, endpoint: configuration.hub.control, logger: Logger(label: "locus.control"),
                                    limits: configuration.hub.controlLimits,
                                    curve: security.servers[configuration.hub.control]) {
            request in await commands.handle(request)
        }
        try control.start()
        parts.started(control.stop)
        let restricted = configuration.hub.restricted.sorted { $0.key < $1.key }.map { endpoint, policy in
            RestrictedPublisher(endpoint: endpoint, topics: policy.topics, precision: policy.precision, curve: security.servers[endpoint],
                                context: context, highWaterMark: configuration.hub.limits.highWaterMark, logger: Logger(label: "locus.hub"))
        }
        for r in restricted {
            try r.start()
            parts.started(r.stop)
        }
        for (path, gid) in socketGroups { try SocketGroup.apply(path: path, group: gid) }
        return DaemonBus(zap: zap, journal: journal, hub: hub, catchup: catchup, control: control, restricted: restricted)
    }
}

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
    /// Why the state directory (or the journal in it) could not be written at boot: the daemon
    /// runs without the journal and the services keep their state in memory (`StateStoreHealth`).
    var stateDirectoryProblem: String?

    /// Starts every part of `configuration.hub`. On a throw, the parts already started are in
    /// `parts` for the caller to stop.
    static func start(_ configuration: LocusConfiguration, registry: PayloadRegistry, context: ZMQContext,
                      commands: ControlCommands, logger: Logger, parts: StartedParts) throws -> DaemonBus {
        var hubConfig = HubConfiguration(
            ingestEndpoints: configuration.hub.ingest,
            publishEndpoints: configuration.hub.publish.filter { configuration.hub.restricted[$0] == nil },
            limits: configuration.hub.limits)
        hubConfig.outsidePublishers = outsidePublisherPolicy(configuration)
        // Private directories before anything is created in them; the sockets' groups are resolved now.
        let socketGroups = try prepareDirectories(configuration.hub)
        // CURVE endpoints: keys read and the authentication handler serving before any bind.
        let security = try EndpointSecurity.load(configuration.hub.curve)
        hubConfig.curve = security.servers
        let zap = security.isEmpty ? nil : ZAPHandler(context: context, logger: Logger(label: "locus.curve"))
        for (domain, keys) in security.authorized { zap?.authorize(domain: domain, keys: keys) }
        if let zap {
            try zap.start()
            parts.started(zap.stop)
        }
        // A state directory that cannot be written (a full disk, a read-only file system) does
        // not stop the daemon: live events are served without the journal and the stores.
        var stateDirectoryProblem = StateDirectoryProbe.problem(in: configuration.hub.stateDirectory)
        var journal: EventJournal?
        if let settings = configuration.hub.journal, stateDirectoryProblem == nil {
            do {
                journal = try EventJournal(directory: configuration.hub.stateDirectory + "/journal", settings: settings)
            } catch let error as StateStoreError where error.code != .inUse {
                stateDirectoryProblem = "the journal cannot be opened: \(error)"
            }
        }
        if stateDirectoryProblem != nil, configuration.hub.journal != nil {
            // Still one daemon per state directory: its journal's lock, where it can be taken.
            let held = try EventJournal.holdLock(directory: configuration.hub.stateDirectory + "/journal")
            parts.started { withExtendedLifetime(held) {} }
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
        // Without the journal (a state directory that cannot be written) no catch-up socket is bound.
        let unbound = catchup == nil ? Set(configuration.hub.catchup.compactMap { try? Endpoint.validate($0).ipcFilePath }) : []
        for (path, gid) in socketGroups where !unbound.contains(path) { try SocketGroup.apply(path: path, group: gid) }
        return DaemonBus(zap: zap, journal: journal, hub: hub, catchup: catchup, control: control, restricted: restricted,
                         stateDirectoryProblem: stateDirectoryProblem)
    }

    /// What outside publishers may not use: Locus's own topics (`status.`, `clock.`, `region.`),
    /// every in-process service's topics, and the producer names of Locus and of every
    /// in-process plugin. Sources' topics are not reserved (a replay's default is all of `obs.`,
    /// and outside programs publishing `obs.fix.phone` next to it are a normal setup); their
    /// ids are. `exec` plugins are outside publishers themselves, with topics and ids of their own.
    static func outsidePublisherPolicy(_ configuration: LocusConfiguration) -> OutsidePublisherPolicy {
        var topics = ["status.", "clock.", "region."]
        var producers: Set<String> = ConfigLoader.reservedIDs
        for plugin in configuration.plugins where plugin.type != "exec" {
            producers.insert(plugin.id)
            switch plugin.instance {
            case .service(let s): topics += s.produces
            case .source, .sink: break
            }
        }
        var seen = Set<String>()
        topics = topics.filter { !$0.isEmpty && seen.insert($0).inserted }
        return OutsidePublisherPolicy(reservedTopics: topics, reservedProducers: producers,
                                      allowedByEndpoint: configuration.hub.allowTopics, allowedByClient: configuration.hub.clientTopics)
    }

    /// The runtime directories (of every ipc socket) and the state directory, private
    /// (`PrivateDirectory`); a directory holding a socket given to a group lets others pass
    /// through (0711) to reach it. Returns every socket with its group (nil: owner only), to set
    /// once bound.
    static func prepareDirectories(_ hub: HubSettings, dryRun: Bool = false) throws -> [(String, gid_t?)] {
        var groups: [(String, gid_t?)] = []
        var directories: [String: PrivateDirectory.Access] = [:]
        for socket in hub.ipcSockets {
            let dir = (socket.path as NSString).deletingLastPathComponent
            let abs = dir.isEmpty ? FileManager.default.currentDirectoryPath : dir
            if let group = socket.group {
                groups.append((socket.path, try SocketGroup.gid(group)))
                directories[abs] = .traverse
            } else {
                groups.append((socket.path, nil))
                if directories[abs] == nil { directories[abs] = .ownerOnly }
            }
        }
        for (dir, access) in directories.sorted(by: { $0.key < $1.key }) {
            try PrivateDirectory.prepare(dir, what: "runtime directory", access: access, dryRun: dryRun)
        }
        try PrivateDirectory.prepare(hub.stateDirectory, what: "state directory", access: .ownerOnly, dryRun: dryRun)
        return groups
    }
}

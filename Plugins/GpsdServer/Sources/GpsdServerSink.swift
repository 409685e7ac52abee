import Foundation
import LocusCore
import LocusFormats
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// The `gpsd-server` sink: serves the fixes and sky views it takes from the bus to gpsd's
/// clients over gpsd's JSON protocol (`GpsdServerState`), on one event loop of its own. The
/// bus never waits for a client: a client that reads too slowly is cut off, and if the
/// server's loop itself falls behind, updates are dropped and counted.
public struct GpsdServerSink: SinkPlugin, ReportsCounters, OptionalSubscriptions {
    public let configuration: GpsdServerConfiguration
    let address: HTTPAddress
    /// Which devices are served (`sources`, and the config's own source ids).
    let filter: GpsdDeviceFilter
    public let statistics = SourceCounters<GpsdServerCounters>()
    /// What VERSION says: gpsd's release whose protocol this speaks, and Locus as the revision.
    static let release = "3.22"
    static let rev = "locus"
    /// Updates waiting for the server's loop at most (about a second of a busy bus).
    static let maxQueuedUpdates = 10_000
    /// SO_SNDBUF of each client connection. Linux otherwise grows a loopback socket's send
    /// buffer to 4 MB, which took a non-reading watcher's reports for an hour at a receiver's
    /// rate before any bound of Locus's saw it (issue 49 item 1). With this the kernel holds
    /// about 45 KiB for a client (it doubles the value and adds its overhead), and the client's
    /// own receive buffer, if it does not read, some 130 KiB more (measured on loopback, Linux
    /// 6.18); then the bytes wait in Locus,
    /// under client_buffer and write_timeout. A reading client drains it at once.
    static let sendBufferBytes = 16 * 1024

    public var subscriptions: [String] {
        [configuration.fixes == .standard ? "location.update." : "obs.fix.", "obs.sky.", "obs.nmea."]
    }

    /// Only sources asked to pass their sentences on produce `obs.nmea`: without one, a client
    /// asking for NMEA gets an ERROR, and the config is fine.
    public var optionalSubscriptions: [String] { ["obs.nmea."] }

    public var reportedCounters: [String: UInt64] { statistics.counterValues }

    public func run(messages: AsyncStream<BusMessage>, context: PluginContext) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let state = GpsdServerState(configuration: configuration, statistics: statistics, release: Self.release, rev: Self.rev)
        let server: Channel
        do {
            server = try await ServerBootstrap(group: group)
                .serverChannelOption(ChannelOptions.backlog, value: 64)
                .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(ChannelOptions.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 4096))
                .childChannelOption(ChannelOptions.socketOption(.so_sndbuf), value: Self.sendBufferBytes)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(GpsdClientHandler(state: state)) }
                }
                .bind(host: address.host, port: address.port).get()
        } catch {
            try? await group.shutdownGracefully()
            throw Self.explained(error, address: address, id: context.id)
        }
        let loop = server.eventLoop
        let sweep = loop.scheduleRepeatedTask(initialDelay: .milliseconds(250), delay: .milliseconds(250)) { _ in state.sweep() }
        context.logger.info("gpsd-server listening", metadata: ["listen": "\(address.text)", "fixes": "\(configuration.fixes.rawValue)"])

        let queued = NIOLockedValueBox(0)
        for await message in messages {
            guard let update = Self.update(from: message, fixes: configuration.fixes) else {
                statistics.update { $0.droppedUnreadable += 1 }
                continue
            }
            if let drop = admission(of: update, topic: message.topic, producer: message.envelope.producer) {
                statistics.update { $0[keyPath: drop] += 1 }
                continue
            }
            let admitted = queued.withLockedValue { n -> Bool in
                guard n < Self.maxQueuedUpdates else { return false }
                n += 1
                return true
            }
            guard admitted else {
                statistics.update { $0.droppedServerBusy += 1 }
                continue
            }
            statistics.update {
                switch update {
                case .fix: $0.fixesTaken += 1
                case .sky: $0.skyViewsTaken += 1
                case .sentence: $0.sentencesTaken += 1
                }
            }
            loop.execute {
                queued.withLockedValue { $0 -= 1 }
                state.publish(update)
            }
        }
        // The bus closed: the daemon is stopping.
        sweep.cancel()
        try? await loop.submit { state.closeAll() }.get()
        try? await server.close()
        try? await group.shutdownGracefully()
    }

    /// nil when `update` may be served; else the counter of why not. The bus is written by
    /// anyone on the ingest socket: a source must be its topic's, a sentence one sentence
    /// (issue 49 item 5), a device one this server serves (item 6).
    func admission(of update: GpsdDeviceUpdate, topic: String, producer: String) -> WritableKeyPath<GpsdServerCounters, Int>? {
        // obs.fix.<source>, obs.sky.<source>, obs.nmea.<source>; location.update.<service> names
        // the standard service, which reports every device.
        if topic.hasPrefix("obs."), topic.split(separator: ".").last.map(String.init) != update.device {
            return \.droppedSourceMismatch
        }
        if case .sentence(let sentence, _) = update, !GpsdPassThroughSentence.isOneSentence(sentence) {
            return \.droppedBadSentence
        }
        if !filter.serves(device: update.device, producer: producer) { return \.ignoredUnlistedDevice }
        return nil
    }

    /// The device update a bus message carries; nil when it does not read as one.
    static func update(from message: BusMessage, fixes: GpsdServerConfiguration.Fixes) -> GpsdDeviceUpdate? {
        let time = message.envelope.time
        if message.topic.hasPrefix("obs.nmea.") {
            guard let s = message.envelope.payload.as(NMEASentence.self) else { return nil }
            return .sentence(s.sentence, device: s.source)
        }
        if message.topic.hasPrefix("obs.sky.") {
            guard let sky = message.envelope.payload.as(SkyView.self) else { return nil }
            return .sky(sky, time: time, device: sky.source)
        }
        if let fix = message.envelope.payload.as(Fix.self) {
            return .fix(fix, time: time, device: fix.source)
        }
        // A location.update (the standard service's type, not known here): its fields are an
        // obs.fix's, with some more that the fix reader skips.
        guard fixes == .standard, let value = try? JSONValue.read(message.body), let payload = value["payload"] else { return nil }
        let bytes = payload.encoded()
        guard let fix = try? bytes.withUnsafeBufferPointer({ b -> Fix in
            var reader = JSONReader(b)
            return try Fix(from: &reader)
        }) else { return nil }
        return .fix(fix, time: time, device: fix.source)
    }

    /// Why the server cannot listen, in words: a port in use names gpsd first (what holds
    /// 2947 on most machines).
    static func explained(_ error: Error, address: HTTPAddress, id: String) -> Error {
        if let e = error as? IOError, e.errnoCode == EADDRINUSE {
            return PortInUse(address: address.text, port: address.port,
                             usualHolder: "gpsd (systemctl stop gpsd.socket gpsd stops it)",
                             movedBy: ["change listen of gpsd-server sink '\(id)'"])
        }
        if let e = error as? IOError, e.errnoCode == EACCES {
            return GpsdServerError("cannot listen on \(address.text): permission denied (ports below 1024 need privileges)")
        }
        return GpsdServerError("cannot listen on \(address.text): \(error)")
    }
}

public enum GpsdServerPlugin {
    public static let factory = PluginFactory.sink(
        "gpsd-server", summary: "A gpsd-compatible server (gpsd's JSON protocol on port 2947): gpspipe, cgps, Python's gps module and other gpsd clients read Locus's fixes and sky views, and NMEA sentences of sources that pass them on.",
        config: GpsdServerConfiguration.self
    ) { config, setup in try make(config, sourceIds: setup.sourceIds) }

    /// The sink `config` describes, in a config whose sources have `sourceIds` (nil: not
    /// known, every device is served); throws what `locus check` reports.
    static func make(_ config: GpsdServerConfiguration, sourceIds: [String]? = nil) throws -> GpsdServerSink {
        let address: HTTPAddress
        switch HTTPAddress.parse(config.listen, example: "127.0.0.1:2947") {
        case .success(let a): address = a
        case .failure(let e): throw ConfigValueError(key: "listen", e.description)
        }
        if !address.isLoopback && !config.insecure {
            throw ConfigValueError(key: "listen", "\(address.text) is not loopback: gpsd's protocol has no authentication, so anyone who reaches it would read this device's locations. Listen on 127.0.0.1, or set insecure: true to accept that")
        }
        return GpsdServerSink(configuration: config, address: address,
                              filter: GpsdDeviceFilter(listed: config.sources, own: sourceIds, standard: config.fixes == .standard))
    }
}

import Foundation
import LocusCore
import LocusFleet
import LocusFormats
import LocusNATS
import Logging

/// Positions of many devices from a JetStream stream — OwnTracks phones publishing to NATS's MQTT
/// port, or other Locus instances' `nats` sinks — published as `obs.fix.<device>` with the
/// message's own time as event time. Malformed messages are counted by reason and skipped; the
/// source keeps running.
public struct NATSSource: SourcePlugin, ReportsCounters {
    public let configuration: NATSSourceConfiguration
    public let statistics = SourceCounters<NATSSourceCounters>()
    let connection: NATSConnectionSettings
    /// This server's name in its group.
    let memberId: String

    /// In a group: each partition held, its epoch and lag.
    let partitions = NATSPartitionReport()

    public var produces: [String] { ["obs.fix."] }
    /// In a group, a stopping source commits its positions and gives its partitions back (one
    /// request each) so the others take them at once: it may take this long beyond the usual
    /// moment. Requests still waiting for NATS then are cut off (`closeAfter`), so it stops
    /// within the runtime's budget (this plus one second) even when NATS does not answer.
    public var stopTimeout: Double { configuration.group.isEmpty ? 0 : 1 }
    /// Seconds after the stop at which the connection is closed under requests still waiting.
    var closeAfter: Double { configuration.group.isEmpty ? 0.5 : 1.5 }
    public var reportedCounters: [String: UInt64] { statistics.counterValues.merging(partitions.counters) { a, _ in a } }

    public func run(context: PluginContext) async throws {
        let stop = StopSignal()
        let done = ThreadCompletion()
        let interrupt = NATSInterrupt()
        let reader = NATSReader(configuration: configuration, connection: connection, memberId: memberId, counters: statistics,
                                partitions: partitions, context: context, stop: stop, interrupt: interrupt)
        startThread(named: "locus-nats-in", owning: reader) { reader in
            reader.run()
            done.finish(nil)
        }
        try await withTaskCancellationHandler {
            try await done.wait()
        } onCancel: { [closeAfter] in
            stop.set()
            // A request that waits for NATS (a node that does not answer: up to `timeout`) or a
            // slow leave must not hold the stop past its budget.
            DispatchQueue.global().asyncAfter(deadline: .now() + closeAfter) { interrupt.close() }
        }
    }
}

/// The `nats` source's thread: owns the connection and the consumers, (re)connects with backoff,
/// resumes after the last sequence read, and turns messages into fixes. Without a group it reads
/// `filter` with one consumer; in a group, one consumer per partition it holds the lease of.
final class NATSReader {
    private let configuration: NATSSourceConfiguration
    private let settings: NATSConnectionSettings
    private let memberId: String
    private let counters: SourceCounters<NATSSourceCounters>
    private let partitionReport: NATSPartitionReport
    private let context: PluginContext
    private let stop: StopSignal
    /// Closes the connection under a request when the stop cannot wait for it.
    private let interrupt: NATSInterrupt
    private var groupChanges = NATSGroupChanges()
    private var devices: DeviceTable
    private var backoff: Double
    private var nextAttempt = Date()
    private let status: NATSStatusReport
    private var connection: NATSConnection?
    private var group: NATSPartitionGroup?
    /// What is read: partition number to its consumer (the key is 0 without a group).
    private var readers: [Int: PartitionReader] = [:]
    private var nextRoundMs: Int64 = 0
    private var nextCommitMs: Int64 = 0
    /// Where the next round's consumer check starts (they are checked within a time budget).
    private var checkCursor = 0
    /// In a group, the partition each device published was read from: whose state a partition's
    /// checkpoint carries.
    private var deviceIndex: [String: Int] = [:]
    /// How long the services may take to give or take device state: well within a lease, so
    /// renewals are not starved.
    private let stateTimeout: Double
    private var checkpointsFailing = false

    struct PartitionReader {
        /// Nil after it failed or was found gone: made again, after `lastSequence`, in the next round.
        var consumer: JetStreamPullConsumer?
        var epoch: UInt64
        /// The stream sequence of the last message handled: where a new consumer starts after.
        var lastSequence: UInt64?
        var committedSequence: UInt64?
        /// Just taken: the services get the state the last owner checkpointed (nil: none) before
        /// anything of the partition is read.
        var needsState = false
        var takenState: DeviceStateBundle?
        /// Messages of the partition not yet read, as of the last round that asked.
        var pending: UInt64 = 0
    }

    init(configuration: NATSSourceConfiguration, connection: NATSConnectionSettings, memberId: String,
         counters: SourceCounters<NATSSourceCounters>, partitions: NATSPartitionReport = NATSPartitionReport(),
         context: PluginContext, stop: StopSignal, interrupt: NATSInterrupt = NATSInterrupt()) {
        self.configuration = configuration
        settings = connection
        self.memberId = memberId
        self.counters = counters
        partitionReport = partitions
        self.context = context
        self.stop = stop
        self.interrupt = interrupt
        devices = DeviceTable(levels: configuration.deviceTokens, separator: ".", maxDevices: configuration.maxDevices,
                              maxRate: configuration.maxRate)
        backoff = configuration.server.reconnectMin
        status = NATSStatusReport(context: context, servers: connection.servers)
        stateTimeout = min(5, configuration.leaseTTL / 4)
    }

    /// This server's clock for leases and rounds: CLOCK_BOOTTIME, which neither jumps with the
    /// wall clock nor stops while the process is stopped, so a lease held by it runs out by
    /// real elapsed time (others judge it the same way: by how long its key went unchanged).
    private static func nowMs() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_BOOTTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    func run() {
        while !stop.isSet {
            guard let c = connected() else { continue }
            if configuration.group.isEmpty {
                readAll(c)
                continue
            }
            do {
                if try groupRound(c) { recovered() }
            } catch {
                // The bucket cannot be reached: leases run out on their own meanwhile, and
                // `owns` below stops reading a partition once its lease has.
                trouble("\(error)")
            }
            makeMissingConsumers(c)
            do {
                var read = 0
                for p in readers.keys.sorted() where !stop.isSet {
                    // Checked before every batch: a lease that ran out (this server was paused)
                    // ends reading that partition before anything more of it is published.
                    guard group?.member.owns(p, now: Self.nowMs()) == true else {
                        drop(p, counting: \.lost)
                        continue
                    }
                    guard let consumer = readers[p]?.consumer else { continue }
                    let messages: [JetStreamMessage]
                    do {
                        messages = try consumer.fetchAvailable(batch: configuration.batch)
                    } catch {
                        counters.update { $0.readRetries += 1 }
                        readers[p]?.consumer = nil
                        trouble("\(error)")
                        continue
                    }
                    for message in messages {
                        // Again per message: this thread may have been paused (SIGSTOP) in between.
                        guard group?.member.owns(p, now: Self.nowMs()) == true else {
                            drop(p, counting: \.lost)
                            break
                        }
                        handle(message, partition: p)
                    }
                    read += messages.count
                }
                try commitPositions(force: false)
                if read == 0 { Thread.sleep(forTimeInterval: 0.02) }
            } catch {
                trouble("\(error)")
            }
        }
        if let group, !interrupt.isClosed {
            // A clean stop: positions written, partitions given back, so the others take them in
            // their next round instead of after lease_ttl.
            try? commitPositions(force: true)
            let held = readers.count
            do {
                try group.leave()
                context.logger.info("left the group; its partitions were given back", metadata: ["released": "\(held)"])
            } catch {
                context.logger.notice("left the group without giving back every partition: the others take them after lease_ttl",
                                      metadata: ["reason": "\(error)"])
            }
            readers = [:]
            updatePartitionCounters()
        }
        interrupt.disarm()
    }

    /// Without a group: one consumer for `filter`, made again after the last message handled when
    /// it fails or is found gone (checked while idle: its only copy may have been on a server
    /// that died, and a fetch from a consumer that is gone only times out).
    private func readAll(_ c: NATSConnection) {
        do {
            if readers[0]?.consumer == nil {
                if let after = readers[0]?.lastSequence, after > 0 { checkPosition(0, after: after, stream: try c.sequences(of: configuration.stream)) }
                let last = readers[0]?.lastSequence
                let start: JetStreamPullConsumer.Start = last.map { .after($0) } ?? (configuration.start == .all ? .all : .new)
                readers[0] = PartitionReader(consumer: try JetStreamPullConsumer(connection: c, stream: configuration.stream,
                                                                                 filter: configuration.filter, start: start),
                                             epoch: 0, lastSequence: last)
            }
            guard let consumer = readers[0]?.consumer else { return }
            let messages = try consumer.fetch(batch: configuration.batch, timeoutMs: 200)
            if !messages.isEmpty { recovered() }
            for message in messages { handle(message, partition: 0) }
            let now = Self.nowMs()
            if messages.isEmpty, now >= nextRoundMs {
                nextRoundMs = now + 3000
                if try consumer.pending() == nil { readers[0]?.consumer = nil }
            }
        } catch {
            counters.update { $0.readRetries += 1 }
            readers[0]?.consumer = nil
            trouble("\(error)")
        }
    }

    /// The connection, made now if it is time to try; nil while NATS cannot be reached.
    private func connected() -> NATSConnection? {
        if let connection { return connection }
        guard Date() >= nextAttempt else { Thread.sleep(forTimeInterval: 0.05); return nil }
        var reached = false
        // Kept until disarmed: a stop's close must never reach a connection already destroyed.
        var attempt: NATSConnection?
        do {
            let c = try NATSConnection(settings)
            attempt = c
            reached = true
            interrupt.arm(c)
            try c.ensureStream(JetStreamStreamSpec(name: configuration.stream, subjects: configuration.subjects, replicas: configuration.replicas))
            if !configuration.group.isEmpty {
                let store = try JetStreamKeyValue(connection: c, bucket: "locus_group_\(configuration.group)", replicas: configuration.replicas)
                let member = PartitionMember(id: memberId, partitions: configuration.partitions,
                                             leaseMs: Int64(configuration.leaseTTL * 1000), store: store)
                // `start: new`: a partition the group has never read starts at the stream's last
                // sequence when it is first taken (the claim writes it as its position).
                let stream = configuration.stream
                group = NATSPartitionGroup(member: member, store: store,
                                           startSequence: configuration.start == .new ? { try c.sequences(of: stream).last } : nil)
            }
            connection = c
            counters.update { $0.connects += 1 }
            backoff = configuration.server.reconnectMin
            status.connected("reading positions from NATS", ["stream": "\(configuration.stream)", "filter": "\(configuration.filter)",
                                                             "group": "\(configuration.group)", "member": "\(memberId)"])
            return c
        } catch {
            counters.update { $0.connectFailures += 1 }
            withExtendedLifetime(attempt) { interrupt.disarm() }
            down("\(error)", connected: reached)
            return nil
        }
    }

    /// A membership round every third of `lease_ttl`: consumers for partitions taken (after
    /// their positions), none for partitions lost, and partitions released with their positions.
    /// Returns whether a round ran (and every request of it succeeded).
    @discardableResult
    private func groupRound(_ c: NATSConnection) throws -> Bool {
        let now = Self.nowMs()
        guard let group, now >= nextRoundMs, !stop.isSet else { return false }
        nextRoundMs = now + Int64(configuration.leaseTTL * 1000) / 3
        let round = try group.step(now: now)
        if let failure = round.failure { trouble("\(failure)") }
        if round.badLeaseValues > 0 || round.staleMembers > 0 {
            counters.update { $0.badLeaseValues += round.badLeaseValues; $0.staleMembers += round.staleMembers }
        }
        if round.badLeaseValues > 0 {
            // Once per new value: a foreign writer, or a server whose clock is far off.
            context.logger.warning("the group's bucket holds lease values that are not leases or name an impossible expiry; they expire lease_ttl after they last changed",
                                   metadata: ["values": "\(round.badLeaseValues)", "bucket": "locus_group_\(configuration.group)"])
        }
        let lost = round.lost.filter { readers[$0] != nil }.count
        for p in round.lost { drop(p, counting: \.lost) }
        for p in round.releasing {
            try checkpoint([p], now: now)
            readers[p] = nil
            try group.release(p)
            forgetState(of: p)
            counters.update { $0.released += 1 }
        }
        for taken in round.taken {
            // Its state is restored and its consumer made by `makeMissingConsumers`, right after this round.
            readers[taken.partition] = PartitionReader(consumer: nil, epoch: taken.epoch, lastSequence: taken.after,
                                                       committedSequence: taken.after, needsState: true, takenState: taken.state)
            counters.update {
                $0.acquired += 1
                if taken.badPosition { $0.badPositionValues += 1 }
            }
            if taken.badPosition {
                context.logger.warning("a partition's position key holds something that is not a position; read as none (start: \(configuration.start.rawValue))",
                                       metadata: ["partition": "\(taken.partition)"])
            }
            context.logger.debug("took partition", metadata: ["partition": "\(taken.partition)", "epoch": "\(taken.epoch)",
                                                             "after": "\(taken.after ?? 0)",
                                                             "position": "\(taken.fresh ? "none, start: \(configuration.start.rawValue)" : "kept")"])
        }
        if let change = groupChanges.round(members: round.members, silent: round.silent, taken: round.taken.map(\.from),
                                           released: round.releasing.count, lost: lost, held: readers.count) {
            context.logger.info("group membership changed", metadata: change)
        }
        // Consumers say how far behind they are; one that is gone (its only copy was on a NATS
        // server that died) is made again after what was handled. Within a sixth of the lease
        // per round (an unanswered request costs half a second), the rest in the next rounds.
        var lag: UInt64 = 0
        let deadline = Self.nowMs() + Int64(configuration.leaseTTL * 1000) / 6
        let order = readers.keys.sorted()
        for k in order.indices {
            let p = order[(k + checkCursor) % order.count]
            guard Self.nowMs() < deadline, !stop.isSet else { checkCursor = (k + checkCursor) % order.count; break }
            guard let consumer = readers[p]?.consumer else { continue }
            do {
                if let pending = try consumer.pending() {
                    lag += pending
                    readers[p]?.pending = pending
                    continue
                }
                counters.update { $0.consumersLost += 1 }
            } catch {
                counters.update { $0.readRetries += 1 }
            }
            readers[p]?.consumer = nil
        }
        counters.update { $0.pending = Int(lag) }
        updatePartitionCounters()
        return true
    }

    /// Makes the consumers of held partitions that have none (just taken, failed, or gone),
    /// each after the last message handled, for at most a sixth of `lease_ttl` per call: a
    /// request nats-server 2.9 never answers (it placed the consumer on a node that is down)
    /// costs a second, and the leases must still be renewed in time. The rest wait for the next call.
    private func makeMissingConsumers(_ c: NATSConnection) {
        let deadline = Self.nowMs() + Int64(configuration.leaseTTL * 1000) / 6
        // What the stream holds, asked once per call (at start every partition needs a consumer);
        // when it does not answer (a leader being elected), partitions with a position wait for
        // the next call instead of each spending the budget on the same question.
        var stream: (first: UInt64, last: UInt64)?
        var streamUnanswered = false
        for p in readers.keys.sorted() where readers[p]?.consumer == nil {
            guard Self.nowMs() < deadline, !stop.isSet else { break }
            if let after = readers[p]?.lastSequence, after > 0 {
                guard !streamUnanswered else { continue }
                do {
                    let held = try stream ?? c.sequences(of: configuration.stream, timeoutMs: 1000)
                    stream = held
                    checkPosition(p, after: after, stream: held)
                } catch {
                    streamUnanswered = true
                    counters.update { $0.readRetries += 1 }
                    trouble("\(error)")
                    continue
                }
            }
            guard restoreState(p), let reader = readers[p] else { continue }
            let start: JetStreamPullConsumer.Start = reader.lastSequence.map { $0 > 0 ? .after($0) : .all } ?? .all
            do {
                readers[p]?.consumer = try JetStreamPullConsumer(connection: c, stream: configuration.stream,
                                                                 filter: configuration.filter(partition: p), start: start,
                                                                 createTimeoutMs: 1000)
            } catch {
                counters.update { $0.readRetries += 1 }
                trouble("\(error)")
            }
        }
    }

    /// Before a consumer is made after `after`: whether the stream still holds that position
    /// (Plugins/NATS/README.md, "Groups", the position rule; `StreamResume`). Past its last
    /// sequence (the stream was deleted and recreated or restored, or the position forged):
    /// counted, said once, read from the stream's first message, and the partition's devices
    /// start with no service state (what it had belongs to another history). Before its first
    /// (retention removed what came after it): counted, said once, read from the first.
    private func checkPosition(_ p: Int, after: UInt64, stream: (first: UInt64, last: UInt64)) {
        let (first, last) = stream
        let partition = group == nil ? "none" : "\(p)"
        switch StreamResume.resume(after: after, first: first, last: last) {
        case .after:
            return
        case .pastStream(let position, let last):
            counters.update { $0.positionsPastStream += 1 }
            context.logger.warning("position is past the end of the stream (deleted and recreated, restored, or forged): reading from its first message, without the position's service state", metadata: [
                "partition": "\(partition)", "position": "\(position)", "stream_last": "\(last)", "stream_first": "\(first)"])
            readers[p]?.lastSequence = 0
            if group != nil {
                readers[p]?.needsState = true
                readers[p]?.takenState = nil
            }
        case .beforeStream(let position, let first):
            counters.update { $0.positionsBeforeStream += 1 }
            context.logger.warning("the stream no longer holds the messages after this position (retention): reading from its first message; any of these messages were not read", metadata: [
                "partition": "\(partition)", "position": "\(position)", "stream_first": "\(first)", "stream_last": "\(last)"])
            readers[p]?.lastSequence = first - 1
        }
    }

    /// Writes the positions of partitions read since their last write, every `checkpoint_interval`
    /// (or now). A write the bucket refuses means another server owns the partition: dropped.
    private func commitPositions(force: Bool) throws {
        let now = Self.nowMs()
        guard group != nil, force || now >= nextCommitMs else { return }
        nextCommitMs = now + Int64(configuration.checkpointInterval * 1000)
        try checkpoint(readers.keys.sorted(), now: now)
        // A checkpoint that timed out waiting for the services or the events stream (a NATS node
        // lost, a leader being elected) held reading up all that time: the next waits four
        // times as long, so reading goes on at four fifths of its pace meanwhile.
        if checkpointsFailing { nextCommitMs = max(nextCommitMs, Self.nowMs() + Int64(stateTimeout * 4000)) }
    }

    /// Writes the positions of `partitions` read since their last write, each with the services'
    /// state of its devices after exactly that position (this thread publishes nothing while the
    /// services give it). When they cannot give it, no position is written: a position without
    /// its state would make a new owner skip messages its services never saw.
    private func checkpoint(_ partitions: [Int], now: Int64) throws {
        guard let group else { return }
        let due = partitions.filter { p in
            guard let r = readers[p], let sequence = r.lastSequence, !r.needsState else { return false }
            return sequence != r.committedSequence
        }
        guard !due.isEmpty else { return }
        let started = DispatchTime.now().uptimeNanoseconds
        var states: [Int: DeviceStateBundle]?
        if let exchange = context.deviceStates {
            let wanted = Set(due)
            let index = deviceIndex
            let selected = Set(index.lazy.filter { wanted.contains($0.value) }.map(\.key))
            do {
                // Stopping: no longer than the stop allows; without it the last checkpoint stays.
                let bundle = try exchange.export(where: { selected.contains($0) }, timeout: stop.isSet ? min(stateTimeout, 0.5) : stateTimeout)
                var split: [Int: DeviceStateBundle] = [:]
                for p in due { split[p] = DeviceStateBundle(services: bundle.services.mapValues { _ in [:] }) }
                for (service, devices) in bundle.services {
                    for (device, json) in devices {
                        guard let p = index[device] else { continue }
                        split[p]?.services[service]?[device] = json
                    }
                }
                states = split
            } catch {
                counters.update { $0.checkpointFailures += 1 }
                // Once per run of failures (they are counted each time).
                if !checkpointsFailing {
                    context.logger.warning("positions not checkpointed: the services did not give their device state; the last checkpoint stays", metadata: [
                        "partitions": "\(due.count)", "reason": "\(error)"])
                }
                checkpointsFailing = true
                return
            }
            if checkpointsFailing { context.logger.notice("positions are checkpointed again") }
            checkpointsFailing = false
            let exportMs = Int((DispatchTime.now().uptimeNanoseconds - started) / 1_000_000)
            counters.update { $0.stateExportMsMax = max($0.stateExportMsMax, exportMs) }
        }
        var failure: (any Error)?
        for p in due {
            guard let sequence = readers[p]?.lastSequence else { continue }
            let state = states?[p]
            do {
                if try group.commit(p, sequence: sequence, state: state, now: now) {
                    readers[p]?.committedSequence = sequence
                    if let state {
                        let n = state.services.values.map(\.count).reduce(0, +)
                        counters.update { $0.checkpoints += 1; $0.statesCheckpointed += n }
                    }
                } else {
                    drop(p, counting: \.positionConflicts)
                }
            } catch {
                counters.update { $0.checkpointFailures += 1 }
                failure = failure ?? error
            }
        }
        let pauseMs = Int((DispatchTime.now().uptimeNanoseconds - started) / 1_000_000)
        counters.update { $0.checkpointMsMax = max($0.checkpointMsMax, pauseMs) }
        if let failure { throw failure }
    }

    /// A partition just taken: its devices get the state its last owner checkpointed (and lose
    /// whatever this server still held of them). False while the services do not take it:
    /// nothing of the partition is read until they do.
    private func restoreState(_ p: Int) -> Bool {
        guard let reader = readers[p], reader.needsState else { return true }
        guard let exchange = context.deviceStates else {
            readers[p]?.needsState = false
            return true
        }
        let bundle = reader.takenState ?? DeviceStateBundle()
        let selected = bundle.devices.union(deviceIndex.lazy.filter { $0.value == p }.map(\.key))
        do {
            try exchange.replace(where: { selected.contains($0) }, with: bundle, timeout: stateTimeout)
        } catch {
            counters.update { $0.stateRestoreFailures += 1 }
            context.logger.warning("the services did not take a partition's device state; retried in the next round", metadata: [
                "partition": "\(p)", "reason": "\(error)"])
            return false
        }
        for device in bundle.devices { deviceIndex[device] = p }
        readers[p]?.needsState = false
        readers[p]?.takenState = nil
        let restored = bundle.services.values.map(\.count).reduce(0, +)
        counters.update { $0.statesRestored += restored }
        return true
    }

    /// A partition given back or lost: its devices' state is the next owner's now, so the
    /// services forget it here (memory; and this server holds no stale state of them should
    /// the partition come back).
    private func forgetState(of p: Int) {
        let selected = Set(deviceIndex.lazy.filter { $0.value == p }.map(\.key))
        guard !selected.isEmpty else { return }
        for device in selected { deviceIndex[device] = nil }
        guard let exchange = context.deviceStates else { return }
        do {
            try exchange.replace(where: { selected.contains($0) }, with: DeviceStateBundle(), timeout: stateTimeout)
        } catch {
            // Kept until the partition comes back (then replaced) or the server restarts.
            context.logger.notice("the services did not forget the device state of a partition given up", metadata: [
                "partition": "\(p)", "reason": "\(error)"])
        }
    }

    private func drop(_ p: Int, counting counter: WritableKeyPath<NATSSourceCounters, Int>?) {
        guard readers.removeValue(forKey: p) != nil else { return }
        forgetState(of: p)
        if let counter {
            counters.update { $0[keyPath: counter] += 1 }
            context.logger.warning("lost partition to another server; nothing more of it is read or published",
                                   metadata: ["partition": "\(p)"])
        }
        updatePartitionCounters()
    }

    private func updatePartitionCounters() {
        let owned = readers.count
        let epochs = readers.values.map(\.epoch).max() ?? 0
        counters.update { $0.partitionsOwned = owned; $0.highestEpoch = Int(epochs) }
        if group != nil { partitionReport.set(readers.mapValues { (epoch: $0.epoch, pending: $0.pending) }) }
    }

    /// A first connection failed: the next attempt waits, from `reconnect_min` doubling to `reconnect_max`.
    private func down(_ reason: String, connected: Bool) {
        nextAttempt = Date().addingTimeInterval(backoff)
        status.failing(reason, retryIn: backoff, connected: connected)
        backoff = min(backoff * 2, configuration.server.reconnectMax)
    }

    /// A request failed on a connection that is up (a server of the cluster is down, a leader is
    /// being elected): retried in the loop, counted by the caller.
    private func trouble(_ reason: String) { status.failing(reason) }

    private func recovered() { status.working() }

    private func handle(_ message: JetStreamMessage, partition: Int) {
        readers[partition]?.lastSequence = message.sequence
        let grouped = group != nil
        counters.update {
            $0.messages += 1
            if !grouped { $0.pending = Int(message.pending) }
            $0.lastSequence = Int(message.sequence)
        }
        let location: IncomingLocation
        switch message.payload.withUnsafeBytes({ IncomingLocation.read($0, format: configuration.format) }) {
        case .success(let l): location = l
        case .failure(let problem): counters.update { $0.count(problem) }; return
        }
        switch devices.admit(topic: message.subject, now: Date().timeIntervalSince1970, fixTime: location.time.seconds) {
        case .publish(let device):
            if grouped, deviceIndex[device] != partition { deviceIndex[device] = partition }
            context.publish(location.fix(source: device), topic: "obs.fix.\(device)", time: location.time)
            let known = devices.count
            counters.update { $0.fixesPublished += 1; $0.devices = known }
        case .badDevice: counters.update { $0.droppedBadDevice += 1 }
        case .tooManyDevices: counters.update { $0.droppedTooManyDevices += 1 }
        case .rateLimited: counters.update { $0.droppedRateLimit += 1 }
        case .otherPartition: break  // no partition given to the table: never
        }
    }
}

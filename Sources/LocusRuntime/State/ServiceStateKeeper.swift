import Foundation
import LocusCore
import LocusStore
import Logging

/// Keeps a `StatefulService`'s state for its runner (issue 31, docs/writing-plugins.md "State"),
/// in one store per service: `<state directory>/services/<id>.sqlite`.
///
/// Per batch of messages the runner takes from its feed: what changed of the service's state,
/// how far its input was processed (`InputPosition`), the events the batch caused, encoded with
/// their sequence numbers, and the publisher's counters go into one transaction; then the
/// events are published. At start the last commit is put back: the state into the fresh
/// instance, the counters into the publisher, and events committed but perhaps not published
/// (a `kill -9` between commit and publish) are published, except those the hub's journal
/// shows it received. So output continues after a restart with no event missing or repeated.
///
/// A batch that changed no state and caused no event is not committed: processed again after a
/// restart, it gives the same nothing.
///
/// The runner's batches are committed and published on a thread of the keeper's own
/// (`StateCommitter`) while the service processes the next batch, in order, at most one waiting;
/// commands, the restore and the end of the loop wait for them (`commitAndPublish` drains first).
///
/// Published events stay in the outbox for `acknowledgeAfter` seconds: publishing hands them to
/// the outlet's thread, which passes them to the hub a moment later, so an event is only known
/// to have reached the hub (and its journal) some time after `send` returned. Later commits
/// delete the older ones; at a start the journal is searched for every one still there.
final class ServiceStateKeeper {
    let id: String
    let store: ServiceStateStore
    let publisher: EventPublisher
    let journal: JournalLocation?
    let logger: Logger
    /// Told of every commit's outcome (`status.locus.state`); nil in tests.
    let health: StateStoreHealth?
    /// The service's configuration (`ConfigFingerprint`), stored with its state: a start with
    /// another one says so. Nil: not compared (tests, services built outside a config).
    let configurationFingerprint: String?
    /// Inputs the service has processed over all runs, as of the last commit (`inputsMeta`).
    private var inputsHandled: UInt64 = 0
    /// Whether the resume has been told (once per run, not at each restart of the instance).
    private var toldResume = false
    private var tracker: ServiceStateTracker?
    private var position = InputPosition()
    /// `position` and the last topic sequence numbers as committed: one row per commit.
    private var positionLog = LoggedTextMap(collection: ServiceStateKeeper.positionCollection,
                                            legacyCollection: ServiceStateKeeper.legacyPositionCollection)
    private var topicSeqLog = LoggedTextMap(collection: ServiceStateKeeper.topicSeqCollection,
                                            legacyCollection: ServiceStateKeeper.legacyTopicSeqCollection)
    /// The service's records that change with nearly every message (`ServiceStateTracker.isLogged`):
    /// one row per commit, not one per record.
    private var stateLog = LoggedTextMap(collection: ServiceStateKeeper.stateLogCollection,
                                         legacyCollection: ServiceStateKeeper.legacyStateLogCollection)
    /// Rows of `stateCollection` that the state log holds now (written before it was): deleted
    /// by the next commit, which writes the whole log.
    private var rowsMovedToLog: [String] = []
    /// Outbox ids published, with the wall-clock time they were: acknowledged by the first
    /// commit `acknowledgeAfter` seconds later.
    private var published: [(id: Int64, atMs: Int64)] = []
    private var publishedHead = 0
    private lazy var committer = StateCommitter(name: "locus-commit")
    static let acknowledgeAfter: Int64 = 5_000
    /// What the runner reports (`locus ctl status`, metrics); read from other threads.
    var counters: Counters { countersLock.withLock { counted } }
    private var counted = Counters()
    /// Inputs of batches handed to the committer and not yet committed (under `countersLock`):
    /// what a failed commit loses (`settleFailedCommits`).
    private var uncommittedInputs: UInt64 = 0
    /// Events of those batches, encoded and not yet published (under `countersLock`).
    private var uncommittedEvents: UInt64 = 0
    private let countersLock = NSLock()

    private func count(_ change: (inout Counters) -> Void) { countersLock.withLock { change(&counted) } }

    struct Counters {
        /// Input messages skipped after a restart because the service had processed them.
        var alreadyProcessed: UInt64 = 0
        /// Transactions committed.
        var commits: UInt64 = 0
        /// Events committed before a restart and published after it.
        var republished: UInt64 = 0
        /// Events committed before a restart that the journal shows were delivered.
        var alreadyDelivered: UInt64 = 0
        /// Committed state records a restart could not use (damaged, or no longer fitting the
        /// config), deleted: what the service had remembered there is lost, so it is counted.
        var recordsDropped: UInt64 = 0
        /// Records copied from an earlier version's own store of the service at its first start.
        var recordsImported: UInt64 = 0
        /// Outbox rows (each a batch's events) committed before a restart that did not read back
        /// (a damaged store): their events are not published.
        var outboxRowsUnreadable: UInt64 = 0
        /// Input messages the service processed in batches whose commit failed (disk full, a
        /// damaged store), or that were behind such a batch: the instance restarts from the last
        /// commit and the feed goes on after them, so what they would have changed is lost.
        var inputsLostToFailedCommit: UInt64 = 0
        /// Transactions that failed (a full disk, a read-only file system, a damaged store).
        var commitsFailed: UInt64 = 0
        /// Events the service emitted in batches whose commit failed, or behind such a batch:
        /// never published, so never journaled nor seen by a subscriber (their sequence
        /// numbers are given again after the restart, so no subscriber sees a gap either).
        var eventsLostToFailedCommit: UInt64 = 0

        var reported: [String: UInt64] {
            ["state_commits": commits, "inputs_already_processed": alreadyProcessed,
             "events_republished": republished, "events_already_delivered": alreadyDelivered,
             "state_records_dropped": recordsDropped, "state_records_imported": recordsImported,
             "outbox_rows_unreadable": outboxRowsUnreadable, "inputs_lost_to_failed_commit": inputsLostToFailedCommit,
             "commits_failed": commitsFailed, "events_lost_to_failed_commit": eventsLostToFailedCommit]
        }

        /// The names of the counters of what a failed commit lost (`status.drops`).
        static let lossNames = ["inputs_lost_to_failed_commit", "events_lost_to_failed_commit"]
    }

    static let stateCollection = "state"
    static let stateLogCollection = "state_log"
    /// Never written: the records the state log holds were rows of `stateCollection` before it
    /// (`rowsMovedToLog`).
    static let legacyStateLogCollection = "state_log_legacy"
    static let positionCollection = "position_log"
    static let topicSeqCollection = "topic_seq_log"
    /// One row per entry, as written before the logs (read once, then deleted).
    static let legacyPositionCollection = "position"
    static let legacyTopicSeqCollection = "topic_seq"
    static let seqMeta = "seq"
    /// How many inputs the service has processed, over all runs (as of the last commit).
    static let inputsMeta = "inputs_handled"
    /// The fingerprint of the configuration the state was saved with.
    static let configurationMeta = "configuration"

    /// The keeper for `service`, or nil when there is nothing to keep: no state directory
    /// (`locus replay`, tests) or a service that keeps no state (`StatefulService`,
    /// `KeyedStatefulService`).
    ///
    /// The state lives in memory for this run, with no journal to consult, when `health` says
    /// the state directory could not be written at boot, or when the store cannot be opened
    /// (`.cannotOpen`: no room, a read-only file system, no permission; said loudly through
    /// `health`). A store that opens but is damaged, lost, of another kind or in use by
    /// another process is still refused by name.
    static func open(for plugin: ConfiguredPlugin, service: any ServicePlugin, publisher: EventPublisher,
                     health: StateStoreHealth? = nil) throws -> ServiceStateKeeper? {
        guard let directory = plugin.setup.stateDirectory, ServiceStateTracker(for: service) != nil else { return nil }
        func inMemory() throws -> ServiceStateKeeper {
            ServiceStateKeeper(id: plugin.id, store: try .inMemory(kind: "service"), publisher: publisher, journal: nil,
                               logger: plugin.setup.logger, health: health, configurationFingerprint: plugin.configurationFingerprint)
        }
        if let health, health.directoryUnavailable { return try inMemory() }
        let store: ServiceStateStore
        do {
            store = try ServiceStateStore(path: directory + "/services/" + plugin.id + ".sqlite", kind: "service")
        } catch let error as StateStoreError where error.code == .cannotOpen && health != nil {
            health?.serviceStoreUnavailable(plugin: plugin.id, reason: error.description)
            return try inMemory()
        }
        return ServiceStateKeeper(id: plugin.id, store: store, publisher: publisher, journal: plugin.setup.journal,
                                  logger: plugin.setup.logger, health: health, configurationFingerprint: plugin.configurationFingerprint)
    }

    init(id: String, store: ServiceStateStore, publisher: EventPublisher, journal: JournalLocation?, logger: Logger,
         health: StateStoreHealth? = nil, configurationFingerprint: String? = nil) {
        self.configurationFingerprint = configurationFingerprint
        self.id = id
        self.store = store
        self.publisher = publisher
        self.journal = journal
        self.logger = logger
        self.health = health
    }

    /// `store.commit`, counted: a failure in `commits_failed` and told to `health` (which
    /// announces the first of an episode), a success told too (which ends one).
    @discardableResult
    private func commitCounted(_ changes: StateChanges) throws -> [Int64] {
        let ids: [Int64]
        do {
            ids = try store.commit(changes)
        } catch {
            count { $0.commitsFailed += 1 }
            health?.commitFailed(plugin: id, error: "\(error)")
            throw error
        }
        count { $0.commits += 1 }
        health?.commitSucceeded(plugin: id)
        return ids
    }

    /// Puts the last commit back into a fresh `service` and the publisher, and publishes what
    /// was committed but not seen delivered. Called before each instance's first message.
    func start(_ service: inout any ServicePlugin) throws {
        // A commit of the previous instance may still run, or may have failed (the reason for
        // this restart): what is committed is what the new instance starts from.
        try? committer.drain()
        committer.reset()
        settleFailedCommits()
        var tracker = ServiceStateTracker(for: service)
        let importedKeys = try importEarlierStore(of: service)
        var records = try store.textRecords(in: Self.stateCollection)
        let damagedLog = try stateLog.load(from: store)
        rowsMovedToLog = []
        if let t = tracker {
            var moved: [String: String] = [:]
            for (key, text) in records where t.isLogged(key) { moved[key] = text }
            stateLog.adopt(moved)
            rowsMovedToLog = moved.keys.sorted()
        }
        for (key, text) in stateLog.values { records[key] = text }
        if !records.isEmpty {
            do {
                try tracker?.restore(records.mapValues { Array($0.utf8) }, into: &service)
            } catch {
                logger.error("the saved state does not decode; the service starts from empty state", metadata: [
                    "plugin": "\(id)", "store": "\(store.path ?? "")", "reason": "\(error)"])
                tracker = ServiceStateTracker(for: service)
                count { $0.recordsDropped += UInt64(records.count) }
            }
        }
        self.tracker = tracker
        if damagedLog > 0 {
            count { $0.recordsDropped += UInt64(damagedLog) }
            logger.warning("saved state log rows could not be read; what the service remembered in them (per-device state) is lost", metadata: [
                "plugin": "\(id)", "store": "\(store.path ?? "")", "rows": "\(damagedLog)"])
        }
        let damaged = try positionLog.load(from: store) + topicSeqLog.load(from: store)
        if damaged > 0 {
            count { $0.recordsDropped += UInt64(damaged) }
            logger.warning("saved input positions or sequence numbers could not be read; messages they covered may be processed again", metadata: [
                "plugin": "\(id)", "records": "\(damaged)"])
        }
        var marks: [String: InputPosition.Mark] = [:]
        for (key, text) in positionLog.values {
            if let mark = InputPosition.mark(fromText: text) { marks[key] = mark }
        }
        position = InputPosition(committed: marks)
        var topicSeqs: [String: UInt64] = [:]
        for (topic, text) in topicSeqLog.values { topicSeqs[topic] = UInt64(text) }
        let seq = try store.meta(Self.seqMeta).flatMap { UInt64($0) } ?? 0
        publisher.restoreSequences(seq: seq, topicSequences: topicSeqs)
        try publishPending()
        // What the restore could not use is deleted now, before any message, and counted.
        // Imported records the service converts (to its current form) or declines are its to
        // report, not records a restart lost.
        let savedInputs = try store.meta(Self.inputsMeta).flatMap { UInt64($0) }
        inputsHandled = savedInputs ?? 0
        if !records.isEmpty { try commitAndPublish(&service, events: [], restoredKeys: Set(records.keys).subtracting(importedKeys)) }
        // Sequence numbers alone are no state to resume from: `StateReset` keeps them.
        let resumes = !records.isEmpty || !marks.isEmpty
        if resumes, !toldResume {
            toldResume = true
            logger.info("resuming from the state an earlier run saved: inputs it handled are skipped if they come again (to start over: locus run --fresh, or locus state reset \(id))", metadata: [
                "plugin": "\(id)", "inputs_handled": "\(savedInputs.map { String($0) } ?? "unknown (saved by an earlier version)")",
                "records": "\(records.count)", "seq": "\(seq)", "state": "\(store.path ?? "in memory")"])
        }
        try noteConfiguration(of: service, hadState: resumes)
    }

    /// Compares the configuration with the one the state was saved with: a change is said once,
    /// with what the service did with the old state (`ExplainsConfigurationChange`), and the
    /// new one is stored.
    private func noteConfiguration(of service: any ServicePlugin, hadState: Bool) throws {
        guard let current = configurationFingerprint else { return }
        let saved = try store.meta(Self.configurationMeta)
        guard saved != current else { return }
        if saved != nil, hadState {
            let what = (service as? any ExplainsConfigurationChange)?.stateAfterConfigurationChange ?? "its saved state is kept as it was"
            logger.notice("configuration of \(id) changed since its state was saved: \(what). Inputs an earlier run handled are not handled again; to handle them with the new configuration, start over: locus run --fresh, or locus state reset \(id)", metadata: [
                "plugin": "\(id)", "state": "\(store.path ?? "in memory")"])
        }
        var change = StateChanges()
        change.setMeta(Self.configurationMeta, current)
        // Only a note: a store that cannot take it now (a full disk) is said by the commit's own
        // failure, and the service starts all the same.
        try? commitCounted(change)
    }

    /// At the first start with an empty store, copies what an earlier version kept in the
    /// service's own file (`ImportsEarlierStateStore`) into this store. A file that cannot be
    /// read is reported and skipped: the service starts as it would without it. Returns the
    /// keys of the records imported.
    private func importEarlierStore(of service: any ServicePlugin) throws -> Set<String> {
        guard let earlier = (service as? any ImportsEarlierStateStore)?.earlierStateStore,
              FileManager.default.fileExists(atPath: earlier.path),
              try store.isEmpty(collection: Self.stateCollection), try store.isEmpty(collection: Self.stateLogCollection),
              try store.meta(Self.seqMeta) == nil else { return [] }
        var changes = StateChanges()
        var imported: Set<String> = []
        do {
            let old = try ServiceStateStore(path: earlier.path, kind: earlier.kind)
            for (collection, prefix) in earlier.collections.sorted(by: { $0.key < $1.key }) {
                for (key, value) in try old.textRecords(in: collection).sorted(by: { $0.key < $1.key }) {
                    changes.put(Self.stateCollection, key: prefix + key, json: value)
                    imported.insert(prefix + key)
                }
            }
        } catch {
            logger.warning("the state file an earlier version of Locus kept for this service cannot be read; it is not imported", metadata: [
                "plugin": "\(id)", "file": "\(earlier.path)", "reason": "\(error)"])
            return []
        }
        guard !imported.isEmpty else { return [] }
        try commitCounted(changes)
        count { $0.recordsImported += UInt64(imported.count) }
        logger.notice("imported the state an earlier version of Locus kept for this service; the old file is left as it was", metadata: [
            "plugin": "\(id)", "file": "\(earlier.path)", "records": "\(imported.count)"])
        return imported
    }

    /// True when `message` was processed before the restart (counted; the runner skips it).
    func alreadyProcessed(_ message: BusMessage) -> Bool {
        let skip = position.alreadyProcessed(message)
        if position.hasSkipReports { tellSkips() }
        guard skip else { return false }
        count { $0.alreadyProcessed += 1 }
        return true
    }

    /// Says, once per producer, that messages an earlier run had handled were skipped: all of
    /// them so far (a replay of the same file then publishes nothing new), or those before the
    /// first new one.
    private func tellSkips() {
        for report in position.takeSkipReports() {
            let metadata: Logger.Metadata = ["plugin": "\(id)", "producer": "\(report.producer)", "state": "\(store.path ?? "in memory")"]
            if report.caughtUp {
                logger.info("all \(report.skipped) messages of \(report.producer) so far were already handled by an earlier run and were skipped; if its input ends here (a replay of the same file), this run publishes nothing new from it. To handle them again, start over: locus run --fresh, or locus state reset \(id)", metadata: metadata)
            } else {
                logger.info("skipped \(report.skipped) messages of \(report.producer) that an earlier run had handled; handling what follows", metadata: metadata)
            }
        }
    }

    /// Records that the service processed `message`.
    func processed(_ message: BusMessage) {
        position.processed(message)
        inputsHandled += 1
    }

    /// Commits the batch just processed (state changes, input position, `events` encoded) in one
    /// transaction, then publishes the events, before returning (a command's reply waits for
    /// it). Throws when the commit fails: nothing of the batch was committed or published (the
    /// runner restarts the service from the last commit). `restoredKeys`: the records just
    /// restored (the commit that follows a restore), so that those the service deleted are
    /// counted as dropped.
    func commitAndPublish(_ service: inout any ServicePlugin, events: [ServiceOutput.Event],
                          restoredKeys: Set<String>? = nil) throws {
        try committer.drain()
        guard let prepared = try prepare(&service, events: events, restoredKeys: restoredKeys) else { return }
        try execute(prepared)
    }

    /// `commitAndPublish` for the runner's batches: the commit is prepared here, on the service's
    /// task, and written and published on the committer's thread while the service goes on with
    /// its next batch; `then` runs once the events are published. Throws the failure of an
    /// earlier batch's commit (then nothing of this one is committed either).
    /// `inputs`: how many messages the service processed in the batch (what a failed commit
    /// loses, counted in `inputs_lost_to_failed_commit`).
    func commitAndPublishInBackground(_ service: inout any ServicePlugin, events: [ServiceOutput.Event], inputs: Int,
                                      then: @escaping @Sendable () -> Void) throws {
        guard let prepared = try prepare(&service, events: events, restoredKeys: nil) else {
            // Nothing to commit, but `then` still runs after the batches before it (the delivery
            // gate must not see a later batch consumed before an earlier one).
            try committer.submit(then)
            return
        }
        let inputs = UInt64(inputs)
        let events = UInt64(prepared.encoded.count)
        countersLock.withLock {
            uncommittedInputs += inputs
            uncommittedEvents += events
        }
        try committer.submit { [self] in
            try execute(prepared)
            countersLock.withLock {
                uncommittedInputs -= inputs
                uncommittedEvents -= events
            }
            then()
        }
    }

    /// Waits until every batch handed to `commitAndPublishInBackground` is committed and
    /// published; throws the first failure (after counting what it lost).
    func finishCommits() throws {
        do { try committer.drain() } catch {
            settleFailedCommits()
            throw error
        }
    }

    /// After a failed commit (the committer drained): the inputs of the batches that did not
    /// commit, and the events they caused, are lost, so they are counted, with a warning.
    private func settleFailedCommits() {
        let (lost, events) = countersLock.withLock {
            defer {
                uncommittedInputs = 0
                uncommittedEvents = 0
            }
            counted.inputsLostToFailedCommit += uncommittedInputs
            counted.eventsLostToFailedCommit += uncommittedEvents
            return (uncommittedInputs, uncommittedEvents)
        }
        guard lost > 0 || events > 0 else { return }
        logger.warning("a commit failed: the messages of the batches it covered were processed but their effect is lost (inputs_lost_to_failed_commit, events_lost_to_failed_commit); the service restarts from the last commit", metadata: [
            "plugin": "\(id)", "messages": "\(lost)", "events": "\(events)"])
    }

    /// Lets the committer's thread end (the service loop ended; a later batch starts another).
    func closeCommitter() { committer.close() }

    /// A batch's commit as prepared on the service's task: what goes into the store, and the
    /// events to publish once it has.
    struct PreparedCommit: Sendable {
        var changes: StateChanges
        var encoded: [EncodedEvent]
        var committedMs: Int64
        var afterRestore: Bool
    }

    /// Takes the service's state changes and the batch's position and encodes its events (they
    /// get their sequence numbers here, in order); nil when there is nothing to commit.
    private func prepare(_ service: inout any ServicePlugin, events: [ServiceOutput.Event],
                         restoredKeys: Set<String>?) throws -> PreparedCommit? {
        let stateChanges = try tracker?.changes(in: &service) ?? []
        if let restoredKeys {
            let dropped = stateChanges.filter { $0.value == nil && restoredKeys.contains($0.key) }.count
            if dropped > 0 {
                count { $0.recordsDropped += UInt64(dropped) }
                logger.warning("saved state records could not be used after the restart and were deleted", metadata: [
                    "plugin": "\(id)", "records": "\(dropped)"])
            }
        }
        if stateChanges.isEmpty, events.isEmpty, !stateLog.needsCommit { return nil }
        let encoded = publisher.encode(events)
        let now = Self.wallClockMs()
        var changes = StateChanges()
        var logged: [(key: String, text: String?)] = []
        for change in stateChanges {
            if let t = tracker, t.isLogged(change.key) {
                logged.append((change.key, change.value.map { String(decoding: $0, as: UTF8.self) }))
            } else if let value = change.value {
                changes.put(Self.stateCollection, key: change.key, json: String(decoding: value, as: UTF8.self))
            } else {
                changes.delete(Self.stateCollection, key: change.key)
            }
        }
        stateLog.commit(logged, into: &changes)
        for key in rowsMovedToLog { changes.delete(Self.stateCollection, key: key) }
        rowsMovedToLog = []
        positionLog.commit(position.takeChanged().map { ($0.key, InputPosition.text($0.mark)) }, into: &changes)
        changes.setMeta(Self.inputsMeta, String(inputsHandled))
        if let last = encoded.last {
            changes.setMeta(Self.seqMeta, String(last.seq))
            var lastOnTopic: [String: UInt64] = [:]
            for e in encoded { lastOnTopic[e.topic] = e.topicSeq }
            // One outbox row for the batch. Its time is when it was committed, for the journal
            // search after a restart.
            changes.append(envelopes: encoded.map { ($0.topic, $0.body) }, time: EventTime(milliseconds: now))
            topicSeqLog.commit(lastOnTopic.map { ($0.key, String($0.value)) }, into: &changes)
        }
        return PreparedCommit(changes: changes, encoded: encoded, committedMs: now, afterRestore: restoredKeys != nil)
    }

    /// Commits `prepared` with the acknowledgement of events published long enough ago, then
    /// publishes its events. Runs on the committer's thread, or on the service's task once the
    /// committer is drained: never both at once (`published` is this function's alone).
    private func execute(_ prepared: PreparedCommit) throws {
        var changes = prepared.changes
        let now = prepared.committedMs
        var acknowledged = publishedHead
        while acknowledged < published.count, published[acknowledged].atMs <= now - Self.acknowledgeAfter { acknowledged += 1 }
        if acknowledged > publishedHead { changes.acknowledge(through: published[acknowledged - 1].id) }
        let ids = try commitCounted(changes)
        publishedHead = acknowledged
        if publishedHead > 1024, publishedHead * 2 > published.count {
            published.removeFirst(publishedHead)
            publishedHead = 0
        }
        if let last = ids.last { published.append((last, now)) }
        // The commit after a restore carries no events: the test hook waits for one that does.
        if !prepared.afterRestore { CrashHook.afterCommit(id) }
        publisher.send(prepared.encoded)
    }

    /// Publishes envelopes committed before the restart and not acknowledged, except those the
    /// journal shows the hub received; then acknowledges them all.
    private func publishPending() throws {
        let outbox = try store.pendingEnvelopes()
        guard let last = outbox.lastID else { return }
        if !outbox.unreadableIDs.isEmpty {
            count { $0.outboxRowsUnreadable += UInt64(outbox.unreadableIDs.count) }
            logger.warning("events committed before the restart could not be read back from the store; they are not published", metadata: [
                "plugin": "\(id)", "store": "\(store.path ?? "")", "rows": "\(outbox.unreadableIDs.count)"])
        }
        let pending = outbox.envelopes
        let delivered = deliveredSequences(pending.map(\.topic), since: pending.map(\.committedMs).min() ?? 0)
        var sent = 0
        for row in pending {
            let body = Array(row.body.utf8)
            let seq = body.withUnsafeBytes { EnvelopeOrigin.read($0)?.seq }
            if let delivered, let seq, delivered.contains(seq) {
                count { $0.alreadyDelivered += 1 }
                continue
            }
            // Every row is an envelope this keeper encoded, so `seq` reads; one that does not is
            // published anyway rather than dropped without a count.
            publisher.send([EncodedEvent(topic: row.topic, time: EventTime(milliseconds: 0), seq: seq ?? 0, topicSeq: 0, body: body)])
            count { $0.republished += 1 }
            sent += 1
        }
        published.removeAll()
        publishedHead = 0
        if sent == 0 {
            var ack = StateChanges()
            ack.acknowledge(through: last)
            try commitCounted(ack)
        } else {
            // What was just published is acknowledged like any publish, by a commit
            // `acknowledgeAfter` later: it is only handed to the outlet's thread yet, and a
            // `kill -9` in the next moment (before the hub journals it) must find it still here.
            // Acknowledging it at once lost such an event (ServiceStateKillTests, one in 20 kills).
            published.append((last, Self.wallClockMs()))
            // Rows that do not read are counted once: deleted now.
            if !outbox.unreadableIDs.isEmpty {
                var drop = StateChanges()
                for rowID in outbox.unreadableIDs { drop.deleteOutboxRow(rowID) }
                try commitCounted(drop)
            }
        }
        if sent > 0 {
            let how = delivered == nil ? "no journal shows which were delivered: subscribers may see some twice (same producer and seq)"
                : "the journal did not have them"
            logger.info("published events committed before the restart", metadata: [
                "plugin": "\(id)", "events": "\(sent)", "why": "\(how)"])
        }
    }

    /// The sequence numbers of this producer's messages the journal took since a minute before
    /// `since` (wall-clock ms); nil when the journal cannot tell (none, or it does not take `topics`).
    private func deliveredSequences(_ topics: [String], since: Int64) -> Set<UInt64>? {
        guard let journal, topics.allSatisfy(journal.takes) else { return nil }
        let reader = JournalReader(directory: journal.directory)
        var at = reader.position(since: since - 60_000)
        var seqs = Set<UInt64>()
        let producer = id
        while true {
            let outcome = reader.read(from: at) { entry in
                if let origin = EnvelopeOrigin.read(entry.body), origin.producer == producer { seqs.insert(origin.seq) }
                return true
            }
            if outcome.reachedEnd || outcome.next == at { break }
            at = outcome.next
        }
        return seqs
    }

    static func wallClockMs() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

}

/// A test hook: `LOCUS_TEST_KILL_AFTER_COMMIT=<service id>:<n>` kills the process with SIGKILL
/// right after that service's n-th commit, before it publishes (the crash tests use it to stop
/// exactly between the two).
enum CrashHook {
    private static let target: (id: String, count: Int)? = {
        guard let value = ProcessInfo.processInfo.environment["LOCUS_TEST_KILL_AFTER_COMMIT"],
              let colon = value.lastIndex(of: ":"), let n = Int(value[value.index(after: colon)...]) else { return nil }
        return (String(value[..<colon]), n)
    }()
    private static let lock = NSLock()
    nonisolated(unsafe) private static var commits: [String: Int] = [:]

    static func afterCommit(_ id: String) {
        guard let target, target.id == id else { return }
        let n = lock.withLock { commits[id, default: 0] += 1; return commits[id]! }
        if n == target.count { kill(getpid(), SIGKILL) }
    }
}

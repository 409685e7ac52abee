import LocusCore
@testable import LocusStore

extension StateChanges {
    /// One outbox row holding one envelope, `{"n":<n>}` on `topic` (what the state keeper
    /// appends per batch, here with one event), at `time` ms.
    mutating func appendTestEvent(_ n: Int, topic: String = "region.enter.home", time: Int64 = 0) {
        append(envelopes: [(topic, Array("{\"n\":\(n)}".utf8))], time: EventTime(milliseconds: time))
    }
}

extension ServiceStateStore {
    /// The outbox's unacknowledged envelopes, oldest first.
    func pending() throws -> [(id: Int64, topic: String, body: String, committedMs: Int64)] {
        try pendingEnvelopes().envelopes
    }
}

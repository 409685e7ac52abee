import LocusCore
@testable import LocusNATSPlugin
import LocusTestKit
import Testing

@Suite struct EventMessageIdTests {
    func event(_ topic: String, speed: Double, seq: UInt64, topicSeq: UInt64?, at seconds: Double) -> BusMessage {
        var m = fixMessage(speed: speed, at: seconds, seq: seq)
        m.topic = topic
        m.envelope.topicSeq = topicSeq
        return m
    }

    /// Two servers derive the same event with their own sequence numbers: one id.
    @Test func theSameEventFromTwoServersHasOneId() {
        let a = event("region.enter.depot.van1", speed: 3, seq: 17, topicSeq: 4, at: 100)
        let b = event("region.enter.depot.van1", speed: 3, seq: 90_001, topicSeq: 77, at: 100)
        #expect(EventMessageId.of(topic: a.topic, envelope: a.envelope) == EventMessageId.of(topic: b.topic, envelope: b.envelope))
        #expect(EventMessageId.of(topic: a.topic, envelope: a.envelope).hasPrefix("region.enter.depot.van1/"))
    }

    @Test func anotherTimeTopicOrPayloadIsAnotherId() {
        let base = event("location.update.van1", speed: 3, seq: 1, topicSeq: 1, at: 100)
        let ids = [
            base,
            event("location.update.van1", speed: 3, seq: 1, topicSeq: 1, at: 101),
            event("location.update.van2", speed: 3, seq: 1, topicSeq: 1, at: 100),
            event("location.update.van1", speed: 4, seq: 1, topicSeq: 1, at: 100),
        ].map { EventMessageId.of(topic: $0.topic, envelope: $0.envelope) }
        #expect(Set(ids).count == 4)
    }
}

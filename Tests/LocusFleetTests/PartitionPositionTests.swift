import LocusCore
import LocusFleet
import Testing

/// `position.<n>` in a group's bucket: sequence, epoch and the devices' service state read back
/// as written; anything else reads as no position (never a trap).
struct PartitionPositionTests {
    @Test func aPositionWithStateReadsBackAsItself() throws {
        let state = DeviceStateBundle(services: [
            "fences": ["v1": Array(#"{"records":{"f1":{"state":"satisfied"}},"times":{"last_fix_time":5}}"#.utf8), "v2": Array("{}".utf8)],
            "visits": [:],
        ])
        let p = PartitionPosition(sequence: 42, epoch: 7, state: state)
        let back = try #require(PartitionPosition(bytes: p.bytes))
        #expect(back.sequence == 42 && back.epoch == 7)
        #expect(back.state?.devices == ["v1", "v2"])
        #expect(back.state?.services["visits"] == [:])
        #expect(PartitionPosition(bytes: back.bytes) == back)
        // Without state (no service moves device state): none is written or read.
        let plain = PartitionPosition(sequence: 3, epoch: 1)
        #expect(!String(decoding: plain.bytes, as: UTF8.self).contains("state"))
        #expect(PartitionPosition(bytes: plain.bytes) == plain)
    }

    @Test func aDamagedStateIsNoPosition() {
        for text in [#"{"sequence":1,"epoch":1,"state":[]}"#, #"{"sequence":1,"epoch":1,"state":{"fences":3}}"#,
                     #"{"sequence":-1,"epoch":1}"#, #"{"sequence":1}"#, "not json"] {
            #expect(PartitionPosition(bytes: Array(text.utf8)) == nil, "\(text)")
        }
    }

    @Test func aBundleSplitsByDevice() {
        let b = DeviceStateBundle(services: ["a": ["x": [1], "y": [2]], "b": ["y": [3]]])
        #expect(b.devices == ["x", "y"])
        #expect(b.filter { $0 == "y" } == DeviceStateBundle(services: ["a": ["y": [2]], "b": ["y": [3]]]))
    }
}

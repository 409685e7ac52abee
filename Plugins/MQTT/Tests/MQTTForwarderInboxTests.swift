import Foundation
@testable import LocusMQTTPlugin
import LocusTestKit
import Testing

/// The forwarder's inbox signals a wake-up on a file descriptor as well, so the forwarder's wait
/// on the broker's socket ends at once instead of after its timeout (20 ms added to every
/// event, before): readable while a wake-up is pending, drained when it is taken, whatever
/// raised it (a journal record, a live message, the end).
@Suite struct MQTTForwarderInboxTests {
    static func readable(_ fd: Int32) -> Bool {
        var p = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
        return poll(&p, 1, 0) == 1 && p[0].revents & Int16(POLLIN) != 0
    }

    @Test func theWakeDescriptorIsReadableExactlyWhileAWakeUpIsPending() {
        let inbox = ForwarderInbox(limit: 4)
        #expect(inbox.wakeFD >= 0)
        #expect(!Self.readable(inbox.wakeFD))
        inbox.wake()
        inbox.wake()  // a second wake-up before it is taken: still one
        #expect(Self.readable(inbox.wakeFD))
        #expect(inbox.takeWake())
        #expect(!Self.readable(inbox.wakeFD))
        #expect(!inbox.takeWake())

        #expect(inbox.push(.init(topic: "t", body: [1])))
        #expect(Self.readable(inbox.wakeFD))
        #expect(inbox.wait(seconds: 0))
        #expect(!Self.readable(inbox.wakeFD))

        inbox.end()
        #expect(Self.readable(inbox.wakeFD))
        #expect(inbox.takeWake() && !Self.readable(inbox.wakeFD))
    }
}

import Foundation
import LocusCore
@testable import LocusRuntime
import Testing

/// Issue 50 item 1: what a second run says about inputs an earlier run handled, and each config
/// file's own default state directory.
struct ResumeReportTests {
    func message(_ topic: String, producer: String = "walk", ms: Int64) -> BusMessage {
        let fix = Fix(source: "gps0", mode: .threeD, latitude: 46, longitude: 14)
        return BusMessage(topic: topic, envelope: Envelope(producer: producer, seq: 1, time: EventTime(milliseconds: ms), payload: fix))
    }

    func committed(_ messages: [BusMessage]) -> [String: InputPosition.Mark] {
        var before = InputPosition()
        for m in messages { before.processed(m) }
        return Dictionary(uniqueKeysWithValues: before.takeChanged().map { ($0.key, $0.mark) })
    }

    @Test func theSameInputAgainIsReportedOnceAsCaughtUpWhenEveryMarkIsReached() {
        let input = [message("obs.fix.gps0", ms: 1000), message("clock.tick", ms: 1000), message("obs.fix.gps0", ms: 2000),
                     message("clock.tick", ms: 2000), message("obs.fix.gps0", ms: 2000)]
        var after = InputPosition(committed: committed(input))
        var reports: [InputPosition.SkipReport] = []
        for m in input {
            let skipped = after.alreadyProcessed(m)
            #expect(skipped)
            reports += after.takeSkipReports()
        }
        #expect(reports == [.init(producer: "walk", skipped: 5, caughtUp: true)])
    }

    @Test func aNewMessageAfterTheSkippedOnesIsReportedOnceAsNotCaughtUp() {
        var after = InputPosition(committed: committed([message("obs.fix.gps0", ms: 1000), message("obs.fix.gps0", ms: 2000)]))
        var reports: [InputPosition.SkipReport] = []
        for (ms, skip) in [(1000, true), (1500, true), (3000, false), (4000, false)] as [(Int64, Bool)] {
            let skipped = after.alreadyProcessed(message("obs.fix.gps0", ms: ms))
            #expect(skipped == skip)
            reports += after.takeSkipReports()
        }
        // 2000 never came: the input changed. What was skipped is said when the first new one comes.
        #expect(reports == [.init(producer: "walk", skipped: 2, caughtUp: false)])
    }

    @Test func aLiveSourceWithOnlyNewMessagesIsNotReported() {
        var after = InputPosition(committed: committed([message("obs.fix.gps0", producer: "gps", ms: 1000)]))
        let skipped = after.alreadyProcessed(message("obs.fix.gps0", producer: "gps", ms: 5000))
        #expect(!skipped)
        #expect(!after.hasSkipReports)
    }

    @Test func eachConfigFileHasItsOwnDefaultStateDirectory() throws {
        let environment = ["HOME": "/home/u"]
        let a = RuntimePaths.stateDirectory(forConfig: "/srv/a/config.yaml", environment: environment)
        let b = RuntimePaths.stateDirectory(forConfig: "/srv/b/config.yaml", environment: environment)
        #expect(a != b)
        #expect(a.hasPrefix("/home/u/.local/state/locus/configs/config-") && a.count == "/home/u/.local/state/locus/configs/config-".count + 12)
        #expect(a == RuntimePaths.stateDirectory(forConfig: "/srv/a/config.yaml", environment: environment))
        #expect(RuntimePaths.stateDirectory(forConfig: "/srv/a/config.yaml", environment: ["HOME": "/home/u", "XDG_STATE_HOME": "/x"])
            .hasPrefix("/x/locus/configs/config-"))
        // A chosen directory is used as it is, for every config.
        for chosen in [["LOCUS_STATE_DIR": "/s"], ["STATE_DIRECTORY": "/s:/t"]] {
            #expect(RuntimePaths.stateDirectory(forConfig: "/srv/a/config.yaml", environment: chosen) == "/s")
        }
        // A relative path names the same file as its absolute one.
        let cwd = FileManager.default.currentDirectoryPath
        #expect(RuntimePaths.configKey("demo.yaml") == RuntimePaths.configKey(cwd + "/demo.yaml"))
        #expect(RuntimePaths.configKey("/srv/a/my fleet.yaml").hasPrefix("my_fleet-"))
    }
}

import Foundation
import LocusCore
@testable import LocusGpsdPlugin
import LocusTestKit
import Testing

/// Issue 30 item 13: gpsd guesses the GPS week of `beidou-bd.log` (recorded on 2015-02-25, as
/// `locus decode` says) 1024 weeks late and reports 2034-10-11. The source flags those fixes:
/// counted as `implausible_time`, and `status.<id>` says why, while the fixes still go out.
/// The host clock is the real one (any date from 2020 to 2033 flags 2034 at the default
/// `max_time_error` of a day).
extension GpsdLiveTests {
    @Test(.timeLimit(.minutes(1)))
    func flagsFixesGpsdDatesAWeekRolloverLate() async throws {
        let log = Fixtures.url("beidou-bd.log")
        guard let run = try await run(log, maxTimeError: 86_400, complete: { h in try h.fixes().count >= 8 }) else { return }
        let fixes = try run.harness.fixes()
        let years = Set(fixes.map { $0.time.iso8601.prefix(4) })
        try #require(years == ["2034"], "gpsd 3.22 dates this log 2034: \(years)")
        let counters = run.statistics.counterValues
        #expect(counters["implausible_time"] == UInt64(fixes.count), "\(counters)")
        let flagged = run.harness.statuses.all.filter { $0.0 == .connected && ($0.1 ?? "").contains("implausible fix time") }
        #expect(flagged.count == 1, "\(run.harness.statuses.all)")
        #expect(flagged.first?.1?.contains("implausible fix time: 2034-10-11T07:4") == true
                && flagged.first?.1?.contains("the host clock") == true, "\(flagged)")
    }
}

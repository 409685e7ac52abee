import LocusCore
import LocusStore
import Testing
@testable import LocusRuntime

/// The journal's write health is reported once per change on `status.locus.journal` (issue 29 item 4).
@Suite struct JournalHealthReportTests {
    @Test func onceWhenWritesBeginToFailAndOnceWhenTheyRecover() {
        var healthy = JournalStatistics()
        var full = JournalStatistics()
        full.writeError = "No space left on device"
        #expect(DropReportService.journalChange(from: nil, to: healthy) == nil)
        #expect(DropReportService.journalChange(from: nil, to: nil) == nil)
        let failed = DropReportService.journalChange(from: nil, to: full)
        #expect(failed?.state == .failed && failed?.plugin == "journal" && failed?.reason?.contains("No space left on device") == true)
        // Still failing (even with another error text): nothing new.
        #expect(DropReportService.journalChange(from: "No space left on device", to: full) == nil)
        healthy.appended = 5
        #expect(DropReportService.journalChange(from: "No space left on device", to: healthy)?.state == .running)
    }
}

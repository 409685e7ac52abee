import Foundation
import Testing

/// Issue 50, item 6: Plugins/NATS/README.md says what is so — the takeover bound as measured,
/// the condition under which message ids store an event once, and which field is event time.
struct NATSReadmeTests {
    /// The README with its line breaks as spaces (sentences wrap anywhere).
    static let readme: String = {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("README.md").path
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }()

    @Test func takeoverBoundDuplicateWindowAndEventTimeAreStated() {
        let r = Self.readme
        #expect(!r.isEmpty)
        // Not "after lease_ttl": about twice it after a kill, with the reason.
        #expect(!r.contains("A dead one's are taken after `lease_ttl`."))
        #expect(r.contains("within about **twice `lease_ttl` after it died**"))
        #expect(r.contains("rounds are a third of `lease_ttl` apart"))
        // Once only within the stream's duplicate window, and how to choose it.
        #expect(r.contains("**if the repeat comes within the stream's duplicate window**"))
        #expect(r.contains("store each once within `duplicate_window`"))
        #expect(r.contains("`2 × lease_ttl + checkpoint_interval`"))
        // Which field is event time, per format.
        #expect(r.contains("**event time = `tst`**"))
        #expect(r.contains("**event time = the envelope's `time`**"))
    }
}

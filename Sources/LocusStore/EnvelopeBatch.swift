/// The text of one outbox row holding a whole batch of envelopes
/// (`StateChanges.append(envelopes:time:)`): per envelope a header line
/// `<topic bytes> <body bytes>\n`, then the topic and the body, with nothing between. Lengths,
/// not separators, because a topic may hold any byte a device name may.
///
/// One row per batch instead of one per envelope: a service that publishes every fix (standard)
/// commits ~100,000 envelopes in a journal-bench run, and SQLite's per-row cost was the largest
/// part of what the runtime's state added to it (issue 31's note).
public enum EnvelopeBatch {
    /// The row's text for `envelopes`, in order.
    public static func text(_ envelopes: [(topic: String, body: [UInt8])]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(envelopes.reduce(0) { $0 + $1.body.count + $1.topic.utf8.count + 12 })
        for e in envelopes {
            out.append(contentsOf: String(e.topic.utf8.count).utf8)
            out.append(32)
            out.append(contentsOf: String(e.body.count).utf8)
            out.append(10)
            out.append(contentsOf: e.topic.utf8)
            out.append(contentsOf: e.body)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The envelopes of a row's text, in order; nil when the text is not what `text` writes
    /// (a damaged store): a length that is not a number, or one past the end.
    public static func envelopes(in text: String) -> [(topic: String, body: String)]? {
        let b = Array(text.utf8)
        var out: [(topic: String, body: String)] = []
        var at = 0
        // A decimal length of at most 10 digits, ended by `end`.
        func number(until end: UInt8) -> Int? {
            var value = 0
            let start = at
            while at < b.count, b[at] != end {
                guard (48...57).contains(b[at]), at - start < 10 else { return nil }
                value = value * 10 + Int(b[at] - 48)
                at += 1
            }
            guard at < b.count, at > start else { return nil }
            at += 1
            return value
        }
        while at < b.count {
            guard let topicCount = number(until: 32), let bodyCount = number(until: 10),
                  topicCount <= b.count - at, bodyCount <= b.count - at - topicCount else { return nil }
            let topic = String(decoding: b[at ..< at + topicCount], as: UTF8.self)
            at += topicCount
            out.append((topic, String(decoding: b[at ..< at + bodyCount], as: UTF8.self)))
            at += bodyCount
        }
        return out
    }
}

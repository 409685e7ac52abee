/// An event type's JSON Schema (schemas/<type>.schema.json), compiled once, to check a payload
/// from a publisher outside the process against everything the schema says: types, required
/// and unknown keys, string lengths and patterns, number ranges, enums, array sizes, and the
/// conditional rules (`allOf`, `if`/`then`/`else`, `oneOf`, `anyOf`, `not`). Locus's own
/// decoders read leniently and fast; outside bytes get this slower, complete check.
///
/// The keywords Locus's schemas use are implemented (draft 2020-12 meaning); `format`, `title`,
/// `description` and `x-…` are annotations and ignored, as validators do by default. A schema
/// that uses any other keyword fails to compile, so a new keyword cannot pass unchecked.
public struct PayloadSchema: Sendable {
    /// The schema's `x-locus-topic` (`obs.fix.<source>`): its placeholders name topic segments.
    public let topicTemplate: String?
    let root: PayloadSchemaNode

    public init(json: JSONValue) throws(PayloadSchemaError) {
        guard case .object(let top) = json else { throw PayloadSchemaError("a schema must be an object") }
        var defs: [String: JSONValue] = [:]
        if case .object(let d)? = top["$defs"] { defs = d }
        topicTemplate = top["x-locus-topic"]?.stringValue
        root = try PayloadSchemaNode.compile(json, defs: defs, depth: 0)
    }

    /// What is wrong with `payload`, naming the first offending place (`payload.source`); nil
    /// when the schema accepts it.
    public func problem(_ payload: JSONValue) -> String? {
        root.problem(payload, at: "payload")
    }

    /// What is wrong with `payload` under `topic`: the schema's problem, or a placeholder of the
    /// topic template that names a payload key (`obs.nmea.<source>` and `source`) whose value
    /// is not that segment of the topic — a fix published as `obs.fix.gps0` must say it is
    /// `gps0`'s, or a reader that goes by either would be misled about the other.
    public func problem(_ payload: JSONValue, topic: String) -> String? {
        if let p = problem(payload) { return p }
        guard let template = topicTemplate else { return nil }
        let segments = topic.split(separator: ".", omittingEmptySubsequences: false)
        let parts = template.split(separator: ".")
        // Only a topic of the type's own family (obs.fix.…) says whose it is; the bus lets a
        // type travel on other topics too (a probe, an application's own naming).
        for (i, part) in parts.enumerated() {
            if part.hasPrefix("<") { break }
            guard i < segments.count, segments[i] == part else { return nil }
        }
        for (i, part) in parts.enumerated() where part.hasPrefix("<") && part.hasSuffix(">") {
            let key = String(part.dropFirst().dropLast())
            guard case .string(let value)? = payload[key] else { continue }
            guard i < segments.count else {
                return "topic \(topic) has no segment for <\(key)> (\(template))"
            }
            if segments[i] != value {
                return "payload.\(key) is '\(Self.shown(value))' but the topic says '\(segments[i])' (\(template))"
            }
        }
        return nil
    }

    /// A value as a refusal shows it: at most 64 characters, control characters escaped (it is
    /// an outside publisher's text, going into a log line).
    static func shown(_ s: String) -> String {
        var out = ""
        for u in s.unicodeScalars.prefix(64) {
            out += u.value < 0x20 || u.value == 0x7F ? "\\u{\(String(u.value, radix: 16))}" : String(u)
        }
        return s.unicodeScalars.count > 64 ? out + "…" : out
    }
}

/// A schema Locus cannot compile (a keyword it does not implement, a bad pattern).
public struct PayloadSchemaError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

import Foundation

/// Renders a Locus topic as an MQTT topic: `locus/{device}/{topic}` with `region.enter.home`
/// becomes `locus/van7/region/enter/home`. Locus topics are `a-z 0-9 _ -` and dots
/// (docs/protocol.md 3.2), so they never carry MQTT's wildcards; the device name is checked
/// when the config is read.
struct MQTTTopicTemplate: Sendable {
    private enum Part: Sendable { case text(String), topic, producer }
    private let parts: [Part]

    init(_ template: String, device: String) {
        var parts: [Part] = []
        var rest = Substring(template.replacingOccurrences(of: "{device}", with: device))
        while let open = rest.firstIndex(of: "{") {
            if open > rest.startIndex { parts.append(.text(String(rest[..<open]))) }
            let tail = rest[open...]
            if tail.hasPrefix("{topic}") {
                parts.append(.topic)
                rest = tail.dropFirst("{topic}".count)
            } else if tail.hasPrefix("{producer}") {
                parts.append(.producer)
                rest = tail.dropFirst("{producer}".count)
            } else {
                parts.append(.text("{"))
                rest = tail.dropFirst()
            }
        }
        if !rest.isEmpty { parts.append(.text(String(rest))) }
        self.parts = parts
    }

    func render(topic: String, producer: @autoclosure () -> String) -> String {
        var out = ""
        for part in parts {
            switch part {
            case .text(let t): out += t
            case .topic: out += topic.replacingOccurrences(of: ".", with: "/")
            case .producer: out += producer()
            }
        }
        return out
    }

    /// Why `level` cannot be one MQTT topic level, or nil.
    static func problem(inLevel level: String) -> String? {
        if level.isEmpty { return "is empty" }
        if level.utf8.count > 64 { return "is longer than 64 bytes" }
        if let bad = level.first(where: { $0 == "/" || $0 == "+" || $0 == "#" || $0 == "\0" }) {
            return "contains '\(bad == "\0" ? "NUL" : String(bad))', which cannot be in one MQTT topic level"
        }
        return nil
    }

    /// Why `template` cannot render MQTT topics to publish on, or nil.
    static func problem(inTemplate template: String) -> String? {
        if template.contains("+") || template.contains("#") {
            return "'\(template)' contains an MQTT wildcard ('+' or '#'), which a published topic cannot have"
        }
        if template.hasPrefix("$") { return "'\(template)' starts with '$', which brokers keep for themselves" }
        let unknown = template.replacingOccurrences(of: "{device}", with: "").replacingOccurrences(of: "{topic}", with: "")
            .replacingOccurrences(of: "{producer}", with: "")
        if unknown.contains("{") || unknown.contains("}") {
            return "'\(template)' has a placeholder other than {device}, {topic} and {producer}"
        }
        return nil
    }

    /// The device name when none is configured: the host name's first label, made a valid level.
    static func defaultDevice() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        let name = gethostname(&buffer, buffer.count) == 0 ? String(cString: buffer) : "locus"
        let label = name.split(separator: ".").first.map(String.init) ?? "locus"
        let cleaned = String(label.map { $0 == "/" || $0 == "+" || $0 == "#" ? "-" : $0 }.prefix(64))
        return cleaned.isEmpty ? "locus" : cleaned
    }
}

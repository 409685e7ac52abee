import Foundation
import LocusCore

/// Options of the `console` sink.
public struct ConsoleConfiguration: PluginConfiguration {
    public enum Format: String, Sendable { case text, json }
    public var topics: [String]
    public var format: Format

    public static let keys: [ConfigKey] = [
        ConfigKey("topics", "list of strings", default: "[\"\"]", "Topic prefixes to print; \"\" prints everything."),
        ConfigKey("format", "text | json", default: "text", "text: one readable line per event; json: recording-format JSON lines."),
    ]

    enum CodingKeys: String, CodingKey { case topics, format }

    public init(topics: [String] = [""], format: Format = .text) {
        self.topics = topics
        self.format = format
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        topics = try c.decodeIfPresent([String].self, forKey: .topics) ?? [""]
        let f = try c.decodeIfPresent(String.self, forKey: .format) ?? "text"
        guard let format = Format(rawValue: f) else {
            throw ConfigValueError(key: "format", "format must be text or json, found '\(f)'")
        }
        self.format = format
    }
}

/// Prints events to standard output, one line each.
public struct ConsoleSink: SinkPlugin {
    public let configuration: ConsoleConfiguration
    public init(configuration: ConsoleConfiguration) { self.configuration = configuration }

    public var subscriptions: [String] { configuration.topics }

    public func run(messages: AsyncStream<BusMessage>, context: PluginContext) async throws {
        for await message in messages {
            var line: [UInt8]
            switch configuration.format {
            case .json: line = RecordingLine.encode(topic: message.topic, body: message.body)
            case .text: line = Array((EventSummary.line(for: message) + "\n").utf8)
            }
            line.withUnsafeBytes { _ = fwrite($0.baseAddress, 1, $0.count, stdout) }
            fflush(stdout)
        }
    }
}

public enum ConsolePlugin {
    public static let factory = PluginFactory.sink(
        "console", summary: "Prints events to standard output, readable or as JSON lines.", config: ConsoleConfiguration.self
    ) { config, _ in ConsoleSink(configuration: config) }
}

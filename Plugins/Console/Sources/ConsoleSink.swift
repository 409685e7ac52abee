import Foundation
import LocusCore

/// Options of the `console` sink.
public struct ConsoleConfiguration: DeclaredConfiguration {
    public enum Format: String, Sendable, CaseIterable, SettingValue { case text, json }

    @Setting("topics", "Topic prefixes to print; \"\" prints everything.")
    public var topics: [String] = [""]

    @Setting("format", "text: one readable line per event; json: recording-format JSON lines.")
    public var format: Format = .text

    public init() {}
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
            StandardOutput.write(line)
            StandardOutput.flush()
        }
    }
}

public enum ConsolePlugin {
    public static let factory = PluginFactory.sink(
        "console", summary: "Prints events to standard output, readable or as JSON lines.", config: ConsoleConfiguration.self
    ) { config, _ in ConsoleSink(configuration: config) }
}

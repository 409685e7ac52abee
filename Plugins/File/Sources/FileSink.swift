import LocusCore

/// Appends events to a file as recording-format JSON lines, rotating by size.
public struct FileSink: SinkPlugin {
    public let configuration: FileSinkConfiguration
    public let path: String

    public init(configuration: FileSinkConfiguration, path: String) {
        self.configuration = configuration
        self.path = path
    }

    public var subscriptions: [String] { configuration.topics }

    public func run(messages: AsyncStream<BusMessage>, context: PluginContext) async throws {
        let file = try RotatingFile(path: path, maxBytes: configuration.maxBytes, keep: configuration.keep)
        defer { file.sync() }
        for await message in messages {
            try file.write(RecordingLine.encode(topic: message.topic, body: message.body))
        }
    }
}

public enum FileSinkPlugin {
    public static let factory = PluginFactory.sink(
        "file", summary: "Appends events to a file as JSON lines (the recording format), rotating by size.",
        config: FileSinkConfiguration.self
    ) { config, setup in
        FileSink(configuration: config, path: setup.resolvePath(config.path))
    }
}

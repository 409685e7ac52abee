import LocusCore

/// Options of the `file` sink.
public struct FileSinkConfiguration: PluginConfiguration {
    public var path: String
    public var topics: [String]
    public var maxBytes: Int
    public var keep: Int

    public static let keys: [ConfigKey] = [
        ConfigKey("path", "string", default: nil, "File to append JSON lines to; relative to the config file. Its directory must exist."),
        ConfigKey("topics", "list of strings", default: "[\"\"]", "Topic prefixes to write; \"\" writes everything."),
        ConfigKey("max_bytes", "integer", default: "10485760", "Rotate when the file would grow past this many bytes; 0 never rotates."),
        ConfigKey("keep", "integer", default: "3", "Rotated files to keep (path.1 … path.N)."),
    ]

    enum CodingKeys: String, CodingKey { case path, topics, max_bytes, keep }

    public init(path: String, topics: [String] = [""], maxBytes: Int = 10_485_760, keep: Int = 3) {
        self.path = path
        self.topics = topics
        self.maxBytes = maxBytes
        self.keep = keep
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        path = try c.decode(String.self, forKey: .path)
        topics = try c.decodeIfPresent([String].self, forKey: .topics) ?? [""]
        maxBytes = try c.decodeIfPresent(Int.self, forKey: .max_bytes) ?? 10_485_760
        guard maxBytes >= 0 else { throw ConfigValueError(key: "max_bytes", "max_bytes must be 0 (never rotate) or more, found \(maxBytes)") }
        keep = try c.decodeIfPresent(Int.self, forKey: .keep) ?? 3
        guard keep >= 1, keep <= 1000 else { throw ConfigValueError(key: "keep", "keep must be between 1 and 1000, found \(keep)") }
    }
}

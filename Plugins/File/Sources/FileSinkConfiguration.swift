import LocusCore

/// Options of the `file` sink.
public struct FileSinkConfiguration: DeclaredConfiguration {
    @Setting("path", "File to append JSON lines to; relative to the config file. Its directory must exist.")
    public var path: String

    @Setting("topics", "Topic prefixes to write; \"\" writes everything.")
    public var topics: [String] = [""]

    @Setting("max_bytes", "Rotate when the file would grow past this many bytes; 0 never rotates.",
             check: SettingCheck { $0 >= 0 ? nil : "must be 0 (never rotate) or more, found \($0)" })
    public var maxBytes: Int = 10_485_760

    @Setting("keep", "Rotated files to keep (path.1 … path.N).", check: .within(1...1000))
    public var keep: Int = 3

    public init() {}
}

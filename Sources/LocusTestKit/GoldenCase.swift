import Foundation
import LocusCore
import LocusRuntime
import Logging

/// A golden-file case: a directory with `config.yaml` (a `services:` section), `input.jsonl`
/// (a Locus recording) and `expected.jsonl` (what `locus replay input.jsonl --config
/// config.yaml` printed when the case was last reviewed). This repository's cases are under
/// `Tests/Golden/` (its README says what they check); a plugin package keeps its own.
///
/// ```swift
/// @Test func walk() throws {
///     let d = try GoldenCase(directory: "Golden/odometer-walk").difference(plugins: [OdometerPlugin.factory])
///     #expect(d == nil, "\(d ?? "")")
/// }
/// ```
public struct GoldenCase: Sendable {
    public let directory: String

    public init(directory: String) { self.directory = directory }

    public var configPath: String { directory + "/config.yaml" }
    public var inputPath: String { directory + "/input.jsonl" }
    public var expectedPath: String { directory + "/expected.jsonl" }

    /// The events `locus replay` prints for this case, computed in this process by the code
    /// `locus replay` runs, with `plugins` as the known plugin types (include every type the
    /// case's config uses) and `tickInterval` seconds between `clock.tick`s, as `--tick-interval`.
    /// With `restartingServices`, every stateful service is restarted from its committed state
    /// after each message (`OfflinePipeline.restartsServices`): the output must be the same.
    public func run(plugins: [PluginFactory], tickInterval: Double = 1, restartingServices: Bool = false) throws -> String {
        let logger = Logger(label: "golden") { _ in SwiftLogNoOpLogHandler() }
        let configuration = try ConfigLoader(factories: plugins, logger: logger).load(path: configPath, mode: .servicesOnly)
        var registry = PayloadRegistry.core
        for factory in plugins { for type in factory.payloadTypes { registry.register(type) } }
        var timeline = RecordingTimeline(reader: try LineReader(path: inputPath), topics: ["obs."], tickInterval: tickInterval, registry: registry)
        var pipeline = OfflinePipeline(configuration: configuration, registry: registry, logger: logger)
        pipeline.restartsServices = restartingServices
        var out = [UInt8]()
        try pipeline.run(&timeline, tickInterval: tickInterval) { out += $0 }
        return String(decoding: out, as: UTF8.self)
    }

    /// nil when `run` gives `expected.jsonl` (numbers within a relative 1e-9, everything else
    /// exactly: `GoldenComparison`), else the first difference, naming the line.
    public func difference(plugins: [PluginFactory], tickInterval: Double = 1, restartingServices: Bool = false) throws -> String? {
        let expected = try String(contentsOfFile: expectedPath, encoding: .utf8)
        return GoldenComparison.difference(stream: try run(plugins: plugins, tickInterval: tickInterval, restartingServices: restartingServices), expected)
    }

    /// Writes `expected.jsonl` from `run`: after a change whose new events you have reviewed.
    public func record(plugins: [PluginFactory], tickInterval: Double = 1) throws {
        try Data(try run(plugins: plugins, tickInterval: tickInterval).utf8).write(to: URL(fileURLWithPath: expectedPath))
    }
}

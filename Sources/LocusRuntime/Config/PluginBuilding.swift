import Foundation
import LocusCore
import Yams

/// Builds plugin instances from their config node and turns whatever `build` throws into a
/// positioned, readable `ConfigError`.
struct PluginBuilder {
    var factory: PluginFactory
    /// The plugin's own keys (the entry without type, id and enabled), env already substituted.
    var node: Node
    var setup: PluginSetup
    /// How messages name the plugin: `replay source 'gps0'`.
    var subject: String
    var entryPosition: SourcePosition
    var file: String
    /// `per_device: true`: the service is wrapped in `PerDeviceService`.
    var perDevice = false
    /// The signatures of a `FileFedService`'s files as the last instance built read them.
    let files = WatchedFileLedger()

    /// The instance, or every problem with the plugin's keys (all refused keys, not only the first).
    func build() -> Result<PluginInstance, ConfigErrors> {
        let request = BuildRequest(factory: factory, setup: setup)
        do {
            var built = try NodeDecoder().decode(BuildTrampoline.self, from: node, userInfo: [BuildTrampoline.key: request])
            // The runtime reads a service's files, before any state is restored: part of its config.
            if case .service(let service) = built.instance, var fed = service as? any FileFedService {
                files.record(try WatchedFileReader.load(into: &fed))
                built.instance = .service(fed)
            }
            if perDevice, case .service(let service) = built.instance, !(service is any DeviceKeyedService) {
                if service is any CommandableService {
                    let error = ConfigError(file: file, line: entryPosition.line, column: entryPosition.column, message:
                        "per_device is not available for \(subject) yet: its control commands and saved state are per service, not per device (per_device works for standard, significant-change, visits, region, beacon and services without commands)")
                    return .failure(ConfigErrors(errors: [error]))
                }
                return .success(.service(PerDeviceService(prototype: service, maxDevices: setup.maxDevices)))
            }
            return .success(built.instance)
        } catch {
            return .failure(PluginBuildErrors.configErrors(error, root: node, entry: entryPosition, subject: subject,
                                                           keys: factory.keys, file: file))
        }
    }

    /// `build()` for restarts: same config, fresh instance; failures as `ConfigErrors`.
    func rebuild() throws -> PluginInstance {
        switch build() {
        case .success(let instance): return instance
        case .failure(let errors): throw errors
        }
    }
}

/// What the trampoline needs to call the factory.
private final class BuildRequest {
    let factory: PluginFactory
    let setup: PluginSetup
    init(factory: PluginFactory, setup: PluginSetup) {
        self.factory = factory
        self.setup = setup
    }
}

/// Decoded through `NodeDecoder` only to get hold of its `Decoder`, which it hands to the
/// factory's `build` closure (found in `userInfo`).
private struct BuildTrampoline: Decodable {
    static let key = CodingUserInfoKey(rawValue: "locus.config.pluginBuild")!
    var instance: PluginInstance

    init(from decoder: any Decoder) throws {
        guard let request = decoder.userInfo[Self.key] as? BuildRequest else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "plugin build request missing"))
        }
        instance = try request.factory.build(decoder, request.setup)
    }
}

enum PluginBuildErrors {
    /// Every error in `error` (several for `SettingErrors`) as positioned config errors.
    static func configErrors(_ error: any Error, root: Node, entry: SourcePosition, subject: String,
                             keys: [ConfigKey], file: String) -> ConfigErrors {
        return ConfigErrors(errors: flattened(error).map { e in
            let (position, message) = describe(e, root: root, entry: entry, subject: subject, keys: keys)
            return ConfigError(file: file, line: position.line, column: position.column, message: message)
        })
    }

    /// `SettingErrors` taken apart, also when one setting threw several (a list whose items
    /// each have an unknown key) inside the configuration's own `SettingErrors`.
    static func flattened(_ error: any Error) -> [any Error] {
        guard let several = error as? SettingErrors else { return [error] }
        return several.errors.flatMap(flattened)
    }

    /// Position and message for an error thrown while decoding a plugin's config or building it.
    static func describe(_ error: any Error, root: Node, entry: SourcePosition, subject: String,
                         keys: [ConfigKey]) -> (SourcePosition, String) {
        func at(_ node: Node) -> SourcePosition { SourcePosition(node.mark, fallback: entry) }
        func hint(_ path: [any CodingKey], _ expected: String) -> String {
            guard path.count == 1, path[0].intValue == nil,
                  let key = keys.first(where: { $0.name == path[0].stringValue }) else { return "" }
            var noun = expected
            for article in ["a ", "an "] where noun.hasPrefix(article) { noun.removeFirst(article.count) }
            if let paren = noun.range(of: " (") { noun = String(noun[..<paren.lowerBound]) }
            return key.type == noun ? "" : " (\(key.name): \(key.type))"
        }

        switch error {
        case let e as UnknownConfigKeyError:
            // At the key itself, as the loader reports a plugin's own unknown keys.
            let path = e.container.split(separator: ".").map { PathKey(stringValue: String($0)) }
            let container = ConfigYAML.node(at: path, in: root)
            var keyNode: Node?
            if case .mapping(let m) = container {
                keyNode = ConfigYAML.pairs(m).last { $0.key.stringValue == e.key }?.key
            }
            let name = ConfigYAML.pathDescription(path)
            let place = name.isEmpty ? subject : "\(name) of \(subject)"
            return (keyNode.map(at) ?? (container == root ? entry : at(container)),
                    "unknown key '\(e.key)' in \(place); expected one of: \(e.allowed.joined(separator: ", "))"
                    + ConfigSuggestions.didYouMean(e.key, among: e.allowed))

        case let e as ConfigValueError:
            // `key` is a dotted path; a numeric part is a list index (`publish.1`: `publish[1]`).
            let path = e.key.split(separator: ".").map { PathKey(stringValue: String($0)) }
            let node = ConfigYAML.node(at: path, in: root)
            let name = ConfigYAML.pathDescription(path)
            if node == root || e.key.isEmpty {
                return (entry, "invalid value for '\(name)' in \(subject): \(e.message)")
            }
            return (at(node), "invalid value for '\(name)' in \(subject): \(e.message)")

        case DecodingError.typeMismatch(let type, let context):
            let node = ConfigYAML.node(at: context.codingPath, in: root)
            let key = ConfigYAML.pathDescription(context.codingPath)
            let expected = expectation(type)
            let found = node.foundDescription
            if key.isEmpty {
                return (at(node), "expected \(expected) of settings for \(subject), found \(found)")
            }
            return (at(node), "expected \(expected) for '\(key)' in \(subject), found \(found)\(hint(context.codingPath, expected))")

        case DecodingError.valueNotFound(let type, let context):
            let node = ConfigYAML.node(at: context.codingPath, in: root)
            let key = ConfigYAML.pathDescription(context.codingPath)
            let expected = expectation(type)
            return (at(node), "expected \(expected) for '\(key)' in \(subject), found nothing\(hint(context.codingPath, expected))")

        case DecodingError.keyNotFound(let missing, let context):
            let container = ConfigYAML.node(at: context.codingPath, in: root)
            let key = ConfigYAML.pathDescription(context.codingPath + [missing])
            let position = container == root ? entry : at(container)
            var message = "missing required key '\(key)' in \(subject)"
            if context.codingPath.isEmpty, let doc = keys.first(where: { $0.name == missing.stringValue }) {
                message += " (\(doc.name): \(doc.type) — \(doc.doc))"
            }
            return (position, message)

        case DecodingError.dataCorrupted(let context):
            let node = ConfigYAML.node(at: context.codingPath, in: root)
            let key = ConfigYAML.pathDescription(context.codingPath)
            if key.isEmpty {
                return (at(node), "invalid settings for \(subject): \(context.debugDescription)")
            }
            return (at(node), "invalid value \(node.foundDescription) for '\(key)' in \(subject): \(context.debugDescription)")

        case let e as ConfigErrors:
            return (entry, "cannot set up \(subject): \(e.errors.map(\.message).joined(separator: "; "))")

        default:
            return (entry, "cannot set up \(subject): \(String(describing: error))")
        }
    }

    /// "a number", "an integer", "a list", … for the type a decoder wanted.
    static func expectation(_ type: Any.Type) -> String {
        switch type {
        case is Double.Type, is Float.Type, is Decimal.Type: return "a number"
        case is Int.Type, is Int64.Type, is Int32.Type, is Int16.Type, is Int8.Type,
             is UInt.Type, is UInt64.Type, is UInt32.Type, is UInt16.Type, is UInt8.Type: return "an integer"
        case is Bool.Type: return "a boolean (true or false)"
        case is String.Type, is Substring.Type: return "a string"
        case is Node.Mapping.Type: return "a mapping"
        case is Node.Sequence.Type: return "a list"
        case is Node.Scalar.Type: return "a single value"
        default:
            let name = String(describing: type)
            if name.hasPrefix("Array<") || name.hasPrefix("Set<") || name.hasPrefix("[") && !name.contains(":") { return "a list" }
            if name.hasPrefix("Dictionary<") || name.hasPrefix("[") { return "a mapping" }
            if name.hasPrefix("Optional<") { return "a value" }
            return "a value of type \(name)"
        }
    }
}

/// A coding key for a path given as text (`ConfigValueError.key`).
private struct PathKey: CodingKey {
    var stringValue: String
    var intValue: Int? { Int(stringValue) }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

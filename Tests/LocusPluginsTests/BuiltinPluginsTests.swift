import Foundation
import LocusCore
import LocusPlugins
import LocusTestKit
import Testing

@Suite struct BuiltinPluginsTests {
    static let pluginsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Plugins").path

    struct Manifest: Decodable { var type: String; var dependencies: [String] }

    /// Plugin folder → its `plugin.json` (what Package.swift builds the folder's target from).
    static func manifests() throws -> [String: Manifest] {
        let folders = try FileManager.default.contentsOfDirectory(atPath: pluginsDirectory).filter { !$0.hasPrefix(".") }
        var result: [String: Manifest] = [:]
        for folder in folders {
            let data = try Data(contentsOf: URL(fileURLWithPath: pluginsDirectory + "/" + folder + "/plugin.json"))
            result[folder] = try JSONDecoder().decode(Manifest.self, from: data)
        }
        return result
    }

    @Test func everyPluginFolderIsRegisteredAndDocumented() throws {
        let manifests = try Self.manifests()
        let registered = Set(BuiltinPlugins.all.map(\.type))
        for (folder, manifest) in manifests.sorted(by: { $0.key < $1.key }) {
            #expect(registered.contains(manifest.type),
                    "Plugins/\(folder) (type \(manifest.type)) is not in BuiltinPlugins.all: add `import Locus\(folder)Plugin` and its factory there")
        }
        for type in registered.subtracting(manifests.values.map(\.type)) {
            Issue.record("BuiltinPlugins.all has \(type), which no Plugins/*/plugin.json declares")
        }
        for (folder, manifest) in manifests {
            let base = Self.pluginsDirectory + "/" + folder
            #expect(FileManager.default.fileExists(atPath: base + "/README.md"), "\(folder) has no README.md")
            #expect(FileManager.default.fileExists(atPath: base + "/sample.yaml"), "\(folder) has no sample.yaml")
            let type = manifest.type
            // The README documents every configuration key.
            let readme = try String(contentsOfFile: base + "/README.md", encoding: .utf8)
            for key in BuiltinPlugins.all.first(where: { $0.type == type })!.keys {
                #expect(readme.contains("`\(key.name)`"), "\(folder)/README.md does not document \(key.name)")
            }
        }
    }

    /// The project README's plugin table is where users look first: every built-in type has a row
    /// linking to its folder's README.
    @Test func projectReadmeListsEveryPlugin() throws {
        let readme = try String(contentsOfFile: Self.pluginsDirectory + "/../README.md", encoding: .utf8)
        for (folder, manifest) in try Self.manifests() {
            let type = manifest.type
            #expect(readme.contains("| [`\(type)`](Plugins/\(folder)/README.md) |"),
                    "README.md's plugin table has no row for \(type)")
        }
    }

    @Test func typesAreUniqueAndKeysDocumented() {
        let types = BuiltinPlugins.all.map(\.type)
        #expect(Set(types).count == types.count)
        for f in BuiltinPlugins.all {
            #expect(!f.summary.isEmpty)
            for k in f.keys { #expect(!k.doc.isEmpty, "\(f.type).\(k.name) has no doc line") }
        }
    }

    @Test func registryKnowsPluginEventTypes() {
        #expect(BuiltinPlugins.payloadRegistry.knows("example.speed_alert"))
        #expect(BuiltinPlugins.payloadRegistry.knows("obs.fix"))
    }
}

import Foundation
import LocusCore
import LocusPlugins
import Testing

@Suite struct BuiltinPluginsTests {
    static let pluginsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Plugins").path

    @Test func everyPluginFolderIsRegisteredAndDocumented() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.pluginsDirectory).filter { !$0.hasPrefix(".") }.sorted()
        #expect(folders.sorted() == BuiltinPlugins.folders.keys.sorted(), "a folder under Plugins/ is missing from BuiltinPlugins")
        for folder in folders {
            let base = Self.pluginsDirectory + "/" + folder
            #expect(FileManager.default.fileExists(atPath: base + "/README.md"), "\(folder) has no README.md")
            #expect(FileManager.default.fileExists(atPath: base + "/sample.yaml"), "\(folder) has no sample.yaml")
            let type = try #require(BuiltinPlugins.folders[folder])
            #expect(BuiltinPlugins.all.contains { $0.type == type })
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
        for (folder, type) in BuiltinPlugins.folders {
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

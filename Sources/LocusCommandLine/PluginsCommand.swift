import ArgumentParser
import LocusCore
import LocusPlugins

struct PluginsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugins",
        abstract: "List every plugin type this binary knows with its configuration keys and defaults."
    )

    @Argument(help: "Show only these plugin types.")
    var types: [String] = []

    func run() async throws {
        let chosen = ActivePlugins.all.filter { types.isEmpty || types.contains($0.type) }
        for unknown in types where !ActivePlugins.all.contains(where: { $0.type == unknown }) {
            throw ValidationError("unknown plugin type '\(unknown)'; known: \(ActivePlugins.all.map(\.type).joined(separator: ", "))")
        }
        for (i, f) in chosen.enumerated() {
            if i > 0 { print("") }
            let kinds = PluginKind.allCases.filter { f.kinds.contains($0) }.map { $0.rawValue + "s" }.joined(separator: ", ")
            print("\(f.type)  [\(kinds)]")
            print("  \(f.summary)")
            print("  keys (besides type, id, enabled):")
            for k in f.keys {
                let def = k.defaultValue.map { "default \($0)" } ?? "required"
                print("    \(k.name): \(k.type), \(def)")
                print("        \(k.doc)")
            }
        }
    }
}

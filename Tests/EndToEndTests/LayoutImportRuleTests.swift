import Foundation
import Testing

/// Issue 32 item 6: the README's Layout table names every target and the Locus targets it may
/// import; every Swift file keeps to it. Packages from outside (Logging, GRDB, …) are free.
@Suite struct LayoutImportRuleTests {
    /// A row of the table: the targets it is about, what they may import.
    struct Rule {
        var targets: [String]
        var allowed: Set<String>
    }

    static let root = E2E.repoRoot

    /// Target name → the folder of its Swift sources.
    static func targets() throws -> [String: String] {
        let fm = FileManager.default
        var out: [String: String] = [:]
        for name in try fm.contentsOfDirectory(atPath: root + "/Sources") where !name.hasPrefix(".") {
            out[name] = root + "/Sources/" + name
        }
        // A plugin folder's module is Locus<Folder>Plugin, its tests' Locus<Folder>PluginTests (Package.swift).
        for folder in try fm.contentsOfDirectory(atPath: root + "/Plugins") where fm.fileExists(atPath: root + "/Plugins/\(folder)/plugin.json") {
            out["Locus\(folder)Plugin"] = root + "/Plugins/\(folder)/Sources"
            if fm.fileExists(atPath: root + "/Plugins/\(folder)/Tests") {
                out["Locus\(folder)PluginTests"] = root + "/Plugins/\(folder)/Tests"
            }
        }
        out["locus-bench"] = root + "/Benchmarks/locus-bench"
        return out
    }

    static func pluginModules() throws -> Set<String> {
        Set(try targets().filter { $0.value.contains("/Plugins/") && $0.value.hasSuffix("/Sources") }.keys)
    }

    static func pluginTestModules() throws -> Set<String> {
        Set(try targets().filter { $0.value.contains("/Plugins/") && $0.value.hasSuffix("/Tests") }.keys)
    }

    /// The rows of the README's "### Layout" table.
    static func rules() throws -> [Rule] {
        let readme = try String(contentsOfFile: root + "/README.md", encoding: .utf8)
        guard let start = readme.range(of: "### Layout\n") else { return [] }
        let plugins = try pluginModules()
        let pluginTests = try pluginTestModules()
        var rules: [Rule] = []
        for line in readme[start.upperBound...].split(separator: "\n") {
            guard line.hasPrefix("|") else {
                if !rules.isEmpty { break }
                continue
            }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4, cells[1].hasPrefix("`") else { continue }
            func names(_ cell: String) -> [String] { cell.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) } }
            var targets = names(cells[1])
            if targets.first == "Plugins/<Name>" { targets = Array(plugins) }
            if targets.first == "Plugins/<Name>/Tests" { targets = Array(pluginTests) }
            var allowed = Set(names(cells[3]))
            if cells[3].contains("every plugin") { allowed.formUnion(plugins) }
            rules.append(Rule(targets: targets, allowed: allowed))
        }
        return rules
    }

    /// The Locus modules a Swift file imports (with or without an attribute).
    static func imports(in file: String, of locals: Set<String>) -> Set<String> {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return [] }
        var out: Set<String> = []
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ").filter { !$0.hasPrefix("@") }
            guard words.count >= 2, words[0] == "import" else { continue }
            let module = String(words[1].split(separator: ".").first ?? words[1])
            if locals.contains(module) { out.insert(module) }
        }
        return out
    }

    @Test func theTableNamesEveryTarget() throws {
        let named = Set(try Self.rules().flatMap(\.targets))
        let all = Set(try Self.targets().keys)
        #expect(all.subtracting(named).isEmpty, "targets missing from the README's Layout table: \(all.subtracting(named).sorted())")
        #expect(named.subtracting(all).isEmpty, "the Layout table names targets that do not exist: \(named.subtracting(all).sorted())")
    }

    @Test func everyImportKeepsToTheTable() throws {
        let targets = try Self.targets()
        let locals = Set(targets.keys)
        var rules: [String: Set<String>] = [:]
        for rule in try Self.rules() { for t in rule.targets { rules[t] = rule.allowed } }
        var broken: [String] = []
        for (target, folder) in targets.sorted(by: { $0.key < $1.key }) {
            // A plugin's tests import their own plugin, no other.
            let own = folder.hasSuffix("/Tests") ? [target, String(target.dropLast("Tests".count))] : [target]
            let allowed = (rules[target] ?? []).union(own)
            let files = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
            for file in files {
                for module in Self.imports(in: folder + "/" + file, of: locals) where !allowed.contains(module) {
                    broken.append("\(target): \(file) imports \(module)")
                }
            }
        }
        #expect(broken.isEmpty, "imports the README's Layout table does not allow:\n\(broken.joined(separator: "\n"))")
    }
}

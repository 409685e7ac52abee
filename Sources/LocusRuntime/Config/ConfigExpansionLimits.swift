import Yams

/// Bounds on the document a config file expands to, checked right after parsing and before
/// anything walks it.
///
/// Yams composes an alias by sharing the anchored node, so parsing a "billion laughs" file is
/// cheap; it is walking the expanded tree (substitution, decoding) that would take gigabytes.
/// The check counts the tree as if expanded and stops as soon as a limit is passed, so it costs
/// at most `maxNodes` visits: milliseconds.
struct ConfigExpansionLimits: Sendable {
    /// Nodes (scalars, lists, mappings) in the expanded document. A real config has hundreds;
    /// one with 10,000 regions inline about 100,000.
    var maxNodes = 1_000_000
    /// Times an alias is expanded (each use of `*name`, counted again wherever it is nested).
    var maxAliasExpansions = 10_000
    /// Nesting of lists and mappings once aliases are expanded. libyaml itself refuses more than
    /// 1,000 levels written out; aliases of aliases can nest deeper than what is written.
    var maxDepth = 64

    static let standard = ConfigExpansionLimits()

    /// The first limit `root` passes, at the place that holds the oversized value; nil if none.
    func check(_ root: Node) -> ConfigYAML.SyntaxError? {
        var walk = Walk(limits: self)
        walk.visit(root, depth: 1)
        return walk.failure
    }

    private struct Walk {
        let limits: ConfigExpansionLimits
        var nodes = 0
        var aliases = 0
        var failure: ConfigYAML.SyntaxError?
        /// The nodes from the root to the one being visited.
        var path: [Node] = []

        mutating func visit(_ node: Node, depth: Int) {
            guard failure == nil else { return }
            nodes += 1
            // An expanded alias is the anchored node itself, written earlier in the file than
            // the collection that uses it: that backwards step is how an alias use is seen here.
            if let parent = path.last, node.position < parent.position {
                aliases += 1
                if aliases > limits.maxAliasExpansions {
                    return fail("YAML aliases are expanded more than \(limits.maxAliasExpansions) times (an alias bomb?); write the values out or use fewer nested aliases")
                }
            }
            if nodes > limits.maxNodes {
                return fail("the document expands to more than \(limits.maxNodes) YAML nodes (an alias bomb?); a config file may hold at most \(limits.maxNodes)")
            }
            if depth > limits.maxDepth {
                return fail("lists and mappings nest more than \(limits.maxDepth) levels deep once aliases are expanded; a config file may nest at most \(limits.maxDepth)")
            }
            path.append(node)
            defer { path.removeLast() }
            switch node {
            case .scalar, .alias: break
            case .sequence(let s):
                for child in s { visit(child, depth: depth + 1); if failure != nil { return } }
            case .mapping(let m):
                for (key, value) in m {
                    visit(key, depth: depth + 1)
                    visit(value, depth: depth + 1)
                    if failure != nil { return }
                }
            }
        }

        /// Reports at the innermost node still reached in file order from the root: the value
        /// that uses the aliases, not the anchor they point back to.
        mutating func fail(_ message: String) {
            var place = path.first?.position ?? SourcePosition(line: 1, column: 1)
            var previous: SourcePosition?
            for n in path {
                if let previous, n.position < previous { break }
                place = n.position
                previous = n.position
            }
            failure = ConfigYAML.SyntaxError(position: place, message: message)
        }
    }
}

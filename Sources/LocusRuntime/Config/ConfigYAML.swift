import Foundation
import Yams

/// A place in the config file as editors show it: 1-based line and column (columns count
/// characters). Line 0 means "the file as a whole".
struct SourcePosition: Equatable, Comparable, Sendable {
    var line: Int
    var column: Int

    static let file = SourcePosition(line: 0, column: 0)

    /// Yams marks come from libyaml's 0-based marks with 1 added to both line and column
    /// (`Mark.line`/`Mark.column` are documented as starting from 1, columns counted in Unicode
    /// scalars), which is what editors show; nil marks (nodes built in code) map to `fallback`.
    init(_ mark: Mark?, fallback: SourcePosition = .file) {
        if let mark { self.init(line: max(mark.line, 1), column: max(mark.column, 1)) } else { self = fallback }
    }

    init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    static func < (a: SourcePosition, b: SourcePosition) -> Bool {
        (a.line, a.column) < (b.line, b.column)
    }
}

extension Node {
    var position: SourcePosition { SourcePosition(mark) }

    /// True for an empty value, `~` or `null` written plainly (`key:` with nothing after it).
    var isNull: Bool {
        if case .scalar(let s) = self { return NSNull.construct(from: s) != nil }
        return false
    }

    /// How a value is described in "found …": `'fast'`, `a list`, `a mapping`, `nothing`.
    var foundDescription: String {
        switch self {
        case .scalar(let s):
            if isNull { return "nothing" }
            let text = s.string.count > 60 ? String(s.string.prefix(57)) + "..." : s.string
            return "'\(text)'"
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .alias: return "an alias"
        }
    }

    /// The plain string of a scalar that is not null; nil otherwise.
    var stringValue: String? {
        guard case .scalar(let s) = self, !isNull else { return nil }
        return s.string
    }
}

enum ConfigYAML {
    /// A YAML document that could not be parsed.
    struct SyntaxError: Error, Equatable {
        var position: SourcePosition
        var message: String
    }

    /// Parses a single document. nil for an empty file (or one holding only comments). A
    /// document that passes `limits` once its aliases are expanded is an error too.
    static func parse(_ text: String, limits: ConfigExpansionLimits = .standard) -> Result<Node?, SyntaxError> {
        do {
            // `.basic`: no tag-resolution rules. Every reader here interprets a scalar by its
            // text (`Int.construct`, `isNull`, …), never by its resolved tag, while Yams' default
            // resolver runs up to seven NSRegularExpressions (ICU) on a key each time a mapping is
            // searched for it: most of the time spent loading 10,000 fences, and ICU's code and
            // tables in the daemon's resident memory (issue 14).
            let parser = try Parser(yaml: text, resolver: .basic)
            let root = try parser.singleRoot()
            if let root, let failure = limits.check(root) { return .failure(failure) }
            return .success(root)
        } catch let e as YamlError {
            return .failure(syntaxError(e, text: text))
        } catch {
            return .failure(SyntaxError(position: SourcePosition(line: 1, column: 1), message: "cannot parse YAML: \(error)"))
        }
    }

    static func syntaxError(_ error: YamlError, text: String) -> SyntaxError {
        func described(_ context: YamlError.Context?, _ problem: String, _ mark: Mark) -> SyntaxError {
            var message = "YAML syntax error: \(problem)"
            if let context {
                message += " (\(context.text) at line \(context.mark.line), column \(context.mark.column))"
            }
            if character(in: text, at: mark) == "\t" || problem.contains("tab") {
                message += "; YAML does not allow tabs for indentation, use spaces"
            } else if problem.contains("expected key") || problem.contains("'-' indicator")
                        || problem.contains("mapping values are not allowed") {
                message += "; check the indentation: keys of one mapping must start in the same column"
            } else if problem.contains("expected ',' or ']'") {
                message += "; is a closing ']' missing?"
            } else if problem.contains("expected ',' or '}'") {
                message += "; is a closing '}' missing?"
            }
            return SyntaxError(position: SourcePosition(mark), message: message)
        }
        switch error {
        case let .scanner(context, problem, mark, _), let .parser(context, problem, mark, _),
             let .composer(context, problem, mark, _):
            return described(context, problem, mark)
        case let .reader(problem, offset, _, _):
            let position = offset.map { self.position(ofCharacterOffset: $0, in: text) } ?? SourcePosition(line: 1, column: 1)
            return SyntaxError(position: position, message: "cannot read YAML: \(problem)")
        case let .duplicatedKeysInMapping(duplicates, context):
            return duplicateKeys(duplicates, first: context.mark, text: text)
        default:
            return SyntaxError(position: SourcePosition(line: 1, column: 1), message: "cannot parse YAML: \(error)")
        }
    }

    /// Yams reports a duplicated key at its first occurrence; point at the second one when it
    /// can be found (same key text at the same column further down), since that is usually the
    /// one added by mistake.
    private static func duplicateKeys(_ keys: [String], first: Mark, text: String) -> SyntaxError {
        let key = keys.first ?? "?"
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if first.line >= 1, first.line < lines.count {
            for n in first.line..<lines.count {
                let scalars = Array(lines[n].unicodeScalars)
                let start = first.column - 1
                guard start >= 0, start <= scalars.count else { continue }
                let rest = String(String.UnicodeScalarView(scalars[start...]))
                let before = String(String.UnicodeScalarView(scalars[..<start]))
                let indentOK = before.allSatisfy { $0 == " " || $0 == "-" }
                if indentOK, rest.hasPrefix(key) {
                    let after = rest.dropFirst(key.count).drop { $0 == " " }
                    if after.hasPrefix(":") {
                        return SyntaxError(position: SourcePosition(line: n + 1, column: first.column),
                                           message: "duplicate key '\(key)'; it is already given at line \(first.line)")
                    }
                }
            }
        }
        return SyntaxError(position: SourcePosition(first),
                           message: "duplicate key '\(keys.joined(separator: "', '"))' in the same mapping; each key may appear only once")
    }

    private static func character(in text: String, at mark: Mark) -> Character? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard mark.line >= 1, mark.line <= lines.count else { return nil }
        let scalars = Array(lines[mark.line - 1].unicodeScalars)
        guard mark.column >= 1, mark.column <= scalars.count else { return nil }
        return Character(scalars[mark.column - 1])
    }

    /// Line and column of the `offset`-th character (as Yams counts reader offsets).
    static func position(ofCharacterOffset offset: Int, in text: String) -> SourcePosition {
        var line = 1, column = 1, i = 0
        for c in text {
            if i >= offset { break }
            if c == "\n" || c == "\r\n" { line += 1; column = 1 } else { column += 1 }
            i += 1
        }
        return SourcePosition(line: line, column: column)
    }

    /// A mapping's pairs with YAML merge keys (`<<: *defaults`) expanded; keys written in the
    /// mapping itself override merged ones.
    static func pairs(_ mapping: Node.Mapping) -> [(key: Node, value: Node)] {
        var merged: [(key: Node, value: Node)] = []
        var own: [(key: Node, value: Node)] = []
        for pair in mapping {
            if case .scalar(let s) = pair.key, s.string == "<<", s.style == .plain || s.style == .any {
                switch pair.value {
                case .mapping(let m):
                    merged += pairs(m)
                case .sequence(let seq):
                    for item in seq.reversed() { if let m = item.mapping { merged += pairs(m) } }
                default:
                    own.append(pair)
                }
            } else {
                own.append(pair)
            }
        }
        guard !merged.isEmpty else { return own }
        var result: [(key: Node, value: Node)] = []
        for m in merged where !own.contains(where: { $0.key == m.key }) && !result.contains(where: { $0.key == m.key }) {
            result.append(m)
        }
        return result + own
    }

    /// The node at a Codable coding path below `root`, as far as it exists.
    static func node(at path: [any CodingKey], in root: Node) -> Node {
        var current = root
        for key in path {
            switch current {
            case .sequence(let seq):
                guard let i = key.intValue, i >= 0, i < seq.count else { return current }
                current = seq[i]
            case .mapping(let m):
                guard let value = pairs(m).last(where: { $0.key.stringValue == key.stringValue })?.value else { return current }
                current = value
            default:
                return current
            }
        }
        return current
    }

    /// `topics[1]`, `env.HOME`.
    static func pathDescription(_ path: [any CodingKey]) -> String {
        var s = ""
        for key in path {
            if let i = key.intValue { s += "[\(i)]" } else { s += s.isEmpty ? key.stringValue : "." + key.stringValue }
        }
        return s
    }

    /// The first scalar below `node` (depth first, in file order) satisfying `match`.
    static func firstScalar(in node: Node, where match: (String) -> Bool) -> Node? {
        switch node {
        case .scalar(let s):
            return match(s.string) ? node : nil
        case .sequence(let seq):
            for item in seq { if let found = firstScalar(in: item, where: match) { return found } }
            return nil
        case .mapping(let m):
            for pair in pairs(m) { if let found = firstScalar(in: pair.value, where: match) { return found } }
            return nil
        case .alias:
            return nil
        }
    }

    /// Replaces `${VAR}`, `${VAR:-default}` and `$$` in every scalar value below `node` (keys are
    /// left alone), keeping each scalar's mark, tag and style. Problems are returned with the
    /// position of the scalar they were found in and the key path leading to it.
    static func substitute(_ node: Node, environment: [String: String], path: String,
                           failures: inout [(SourcePosition, String, EnvironmentSubstitution.Failure)]) -> Node {
        switch node {
        case .scalar(let s):
            guard s.string.contains("$") else { return node }
            switch EnvironmentSubstitution.substitute(s.string, environment: environment) {
            case .success(let value):
                if value == s.string { return node }
                return .scalar(Node.Scalar(value, s.tag, s.style, s.mark, s.anchor))
            case .failure(let f):
                failures.append((node.position, path, f))
                return node
            }
        case .sequence(let seq):
            let items = seq.enumerated().map { i, item in
                substitute(item, environment: environment, path: "\(path)[\(i)]", failures: &failures)
            }
            return .sequence(Node.Sequence(items, seq.tag, seq.style, seq.mark, seq.anchor))
        case .mapping(let m):
            let items = pairs(m).map { pair -> (Node, Node) in
                let name = pair.key.stringValue ?? "?"
                let sub = path.isEmpty ? name : "\(path).\(name)"
                return (pair.key, substitute(pair.value, environment: environment, path: sub, failures: &failures))
            }
            return .mapping(Node.Mapping(items, m.tag, m.style, m.mark, m.anchor))
        case .alias:
            return node
        }
    }
}

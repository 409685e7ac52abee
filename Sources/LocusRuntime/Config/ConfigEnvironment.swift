/// `${VAR}`, `${VAR:-default}` and `$$` in config values.
///
/// - `${VAR}` is replaced by the variable's value; unset is an error.
/// - `${VAR:-default}` uses `default` when VAR is unset or empty (the default is taken literally).
/// - `$$` is a literal `$`; a `$` followed by anything else is kept as it is.
enum EnvironmentSubstitution {
    enum Failure: Error, Equatable {
        /// `${NAME}` with NAME unset and no default.
        case unset(String)
        /// `${` without a closing `}`.
        case unterminated(String)
        /// `${…}` whose name is not `[A-Za-z_][A-Za-z0-9_]*`.
        case badName(String)

        var message: String {
            switch self {
            case .unset(let name):
                return "environment variable '\(name)' is not set; set it, or give a default with ${\(name):-value}"
            case .unterminated(let text):
                return "unterminated '${' in '\(text)'; expected ${NAME} or ${NAME:-default} (write $$ for a literal $)"
            case .badName(let name):
                return "'\(name)' is not an environment variable name; expected ${NAME} or ${NAME:-default} with NAME made of letters, digits and '_' (write $$ for a literal $)"
            }
        }
    }

    static func substitute(_ text: String, environment: [String: String]) -> Result<String, Failure> {
        guard text.contains("$") else { return .success(text) }
        var out = ""
        var i = text.startIndex
        while i < text.endIndex {
            let c = text[i]
            guard c == "$" else {
                out.append(c)
                i = text.index(after: i)
                continue
            }
            let next = text.index(after: i)
            if next < text.endIndex, text[next] == "$" {
                out.append("$")
                i = text.index(after: next)
                continue
            }
            guard next < text.endIndex, text[next] == "{" else {
                out.append("$")
                i = next
                continue
            }
            let bodyStart = text.index(after: next)
            guard let close = text[bodyStart...].firstIndex(of: "}") else {
                return .failure(.unterminated(text))
            }
            let (name, fallback) = reference(text[bodyStart..<close])
            guard isValidName(name) else { return .failure(.badName(String(name))) }
            guard let value = value(of: name, fallback: fallback, environment: environment) else {
                return .failure(.unset(String(name)))
            }
            out += value
            i = text.index(after: close)
        }
        return .success(out)
    }

    /// A reference's body, `NAME` or `NAME:-default`, as its name and default.
    static func reference(_ body: Substring) -> (name: Substring, fallback: Substring?) {
        guard let sep = body.range(of: ":-") else { return (body, nil) }
        return (body[..<sep.lowerBound], body[sep.upperBound...])
    }

    /// What `${name}` or `${name:-fallback}` gives: the variable's value, else (unset, or empty
    /// with a default) the default; nil when unset without one.
    static func value(of name: Substring, fallback: Substring?, environment: [String: String]) -> String? {
        if let value = environment[String(name)], !(fallback != nil && value.isEmpty) { return value }
        return fallback.map(String.init)
    }

    /// The environment variables a config's text reads that give `port` here: each
    /// `${NAME}` or `${NAME:-default}` whose value now is the port, in the order they appear.
    /// What a user of a config such as the demo's changes (`LOCUS_DEMO_PORT=5557 locus run`)
    /// rather than the file (`HubBindFailure`).
    static func variables(in text: String, givingPort port: Int, environment: [String: String]) -> [String] {
        var names: [String] = []
        var rest = Substring(text)
        while let open = rest.range(of: "${") {
            rest = rest[open.upperBound...]
            guard let close = rest.firstIndex(of: "}") else { break }
            let (name, fallback) = reference(rest[..<close])
            rest = rest[rest.index(after: close)...]
            guard let value = value(of: name, fallback: fallback, environment: environment), Int(value) == port,
                  !names.contains(String(name)) else { continue }
            names.append(String(name))
        }
        return names
    }

    static func isValidName(_ name: Substring) -> Bool {
        guard let first = name.unicodeScalars.first else { return false }
        func letter(_ u: Unicode.Scalar) -> Bool { (u >= "A" && u <= "Z") || (u >= "a" && u <= "z") || u == "_" }
        return letter(first) && name.unicodeScalars.allSatisfy { letter($0) || ($0 >= "0" && $0 <= "9") }
    }
}

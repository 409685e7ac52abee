/// One problem in a configuration file, with the position an editor shows (1-based line and
/// column; line 0 when the problem is the file as a whole, e.g. it cannot be read).
public struct ConfigError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The config file's path exactly as it was given to the loader.
    public var file: String
    public var line: Int
    public var column: Int
    /// What is wrong and what was expected.
    public var message: String

    public init(file: String, line: Int, column: Int, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// `config.yaml:12:5: error: <message>`, or `config.yaml: error: <message>` for line 0.
    public var description: String {
        if line <= 0 { return "\(file): error: \(message)" }
        return "\(file):\(line):\(column): error: \(message)"
    }
}

/// Every problem found in a configuration file, in file order.
public struct ConfigErrors: Error, CustomStringConvertible {
    public var errors: [ConfigError]

    public init(errors: [ConfigError]) {
        self.errors = errors
    }

    /// One error per line.
    public var description: String {
        errors.map(\.description).joined(separator: "\n")
    }
}

extension ConfigErrors {
    /// Sorts by line, then column; problems at the same place keep the order they were found in.
    static func sorted(_ errors: [ConfigError]) -> ConfigErrors {
        let ordered = errors.enumerated().sorted { a, b in
            if a.element.line != b.element.line { return a.element.line < b.element.line }
            if a.element.column != b.element.column { return a.element.column < b.element.column }
            return a.offset < b.offset
        }.map(\.element)
        // The same problem reached twice (e.g. through a YAML alias) is reported once.
        var seen: [ConfigError] = []
        for e in ordered where !seen.contains(e) { seen.append(e) }
        return ConfigErrors(errors: seen)
    }
}

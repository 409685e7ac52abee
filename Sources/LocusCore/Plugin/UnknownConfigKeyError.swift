/// A key that a nested part of a configuration does not take: a key of one item of a list
/// (`regions:`, `conditions:`, an endpoint entry) or of a mapping inside one (`center:`,
/// `curve:`). The runtime reports each at the key's own line and column, with the keys
/// allowed there and the closest of them ("did you mean"), as it reports a plugin's own keys.
/// Throw one, or several as `SettingErrors` (every misspelt key, not only the first).
public struct UnknownConfigKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Dotted path of the mapping that holds the key, from the plugin's (or hub's) block;
    /// numeric parts are list indices: `regions.0`, `regions.1.center`, `publish.1.curve`.
    public var container: String
    /// The key as written.
    public var key: String
    /// The keys the mapping takes, in the order the docs list them.
    public var allowed: [String]

    public init(container: String, key: String, allowed: [String]) {
        self.container = container
        self.key = key
        self.allowed = allowed
    }

    public var description: String {
        "unknown key '\(key)'; expected one of: \(allowed.joined(separator: ", "))"
    }

    /// One error per key of `keys` not in `allowed`, in sorted order (a decoded mapping has
    /// lost the file's order; the runtime sorts errors by position).
    public static func check(_ keys: some Sequence<String>, allowed: [String], container: String) -> [UnknownConfigKeyError] {
        keys.filter { !allowed.contains($0) }.sorted().map { UnknownConfigKeyError(container: container, key: $0, allowed: allowed) }
    }
}

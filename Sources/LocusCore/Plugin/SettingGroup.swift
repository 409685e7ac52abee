/// `@Setting`s that several plugins share (the `mqtt` source's and sink's broker connection),
/// declared once in a struct and held by each configuration as a stored property.
///
/// Its keys are the configuration's own: flat in the YAML (not under the property's name),
/// decoded, checked and listed (`locus plugins`, the README check) where the property stands
/// among the configuration's `@Setting`s. Implement `init()` (every setting has its default or
/// is required) and, for checks across the group's keys, `validate()`, which runs before the
/// configuration's own `validate()`.
public protocol SettingGroup: Sendable {
    init()
    /// Checks across the group's keys; throw `ConfigValueError(key:_:)` naming the key.
    /// The default checks nothing.
    func validate() throws
}

extension SettingGroup {
    public func validate() throws {}

    /// The group with its defaults, changed by `edit` (`.with { $0.maxMessageBytes = 1024 }`).
    public static func with(_ edit: (inout Self) throws -> Void) rethrows -> Self {
        var group = Self()
        try edit(&group)
        return group
    }
}

/// A check on one setting's value: nil when fine, else what is wrong, completing a sentence
/// that starts with the key's name ("every must be above 0, found -1").
public struct SettingCheck<Value>: Sendable {
    public let problem: @Sendable (Value) -> String?

    public init(_ problem: @escaping @Sendable (Value) -> String?) { self.problem = problem }
}

extension SettingCheck where Value == Double {
    public static func above(_ bound: Double) -> Self {
        Self { $0.isFinite && $0 > bound ? nil : "must be above \(bound.settingText), found \($0.settingText)" }
    }
    public static func atLeast(_ bound: Double) -> Self {
        Self { $0.isFinite && $0 >= bound ? nil : "must be at least \(bound.settingText), found \($0.settingText)" }
    }
    public static func within(_ range: ClosedRange<Double>) -> Self {
        Self { range.contains($0) ? nil : "must be between \(range.lowerBound.settingText) and \(range.upperBound.settingText), found \($0.settingText)" }
    }
}

extension SettingCheck where Value == Int {
    public static func above(_ bound: Int) -> Self { Self { $0 > bound ? nil : "must be above \(bound), found \($0)" } }
    public static func atLeast(_ bound: Int) -> Self { Self { $0 >= bound ? nil : "must be at least \(bound), found \($0)" } }
    public static func within(_ range: ClosedRange<Int>) -> Self {
        Self { range.contains($0) ? nil : "must be between \(range.lowerBound) and \(range.upperBound), found \($0)" }
    }
}

extension SettingCheck where Value == [String] {
    /// Every element is a topic prefix (`Topic.isValidPrefix`).
    public static var topicPrefixes: Self {
        Self { list in
            list.first { !Topic.isValidPrefix($0) }.map { "'\($0)' is not a topic prefix: lower-case segments of a-z 0-9 _ - joined by dots" }
        }
    }
}

/// A check on one setting's value: nil when fine, else what is wrong, completing a sentence
/// that starts with the key's name ("every must be above 0, found -1").
public struct SettingCheck<Value>: Sendable {
    public let problem: @Sendable (Value) -> String?

    public init(_ problem: @escaping @Sendable (Value) -> String?) { self.problem = problem }
}

extension SettingCheck where Value == Double {
    /// `unit` ("m/s", "seconds") follows the bound in the message.
    public static func above(_ bound: Double, unit: String? = nil) -> Self {
        Self { $0.isFinite && $0 > bound ? nil : "must be above \(bound.settingText)\(unitText(unit)), found \($0.settingText)" }
    }
    public static func atLeast(_ bound: Double, unit: String? = nil) -> Self {
        Self { $0.isFinite && $0 >= bound ? nil : "must be at least \(bound.settingText)\(unitText(unit)), found \($0.settingText)" }
    }
    public static func within(_ range: ClosedRange<Double>, unit: String? = nil) -> Self {
        Self {
            range.contains($0) ? nil
                : "must be between \(range.lowerBound.settingText) and \(range.upperBound.settingText)\(unitText(unit)), found \($0.settingText)"
        }
    }
    private static func unitText(_ unit: String?) -> String { unit.map { " " + $0 } ?? "" }
}

extension SettingCheck where Value == Int {
    /// A size in bytes within `range`; the message gives the bounds in KiB/MiB/GiB too.
    public static func bytes(_ range: ClosedRange<Int>) -> Self {
        @Sendable func human(_ n: Int) -> String {
            for (unit, size) in [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)] where n >= size && n % size == 0 {
                return "\(n) (\(n / size) \(unit))"
            }
            return "\(n)"
        }
        return Self { range.contains($0) ? nil : "must be between \(human(range.lowerBound)) and \(human(range.upperBound)), found \($0)" }
    }

    public static func above(_ bound: Int) -> Self { Self { $0 > bound ? nil : "must be above \(bound), found \($0)" } }
    public static func atLeast(_ bound: Int) -> Self { Self { $0 >= bound ? nil : "must be at least \(bound), found \($0)" } }
    public static func within(_ range: ClosedRange<Int>) -> Self {
        Self { range.contains($0) ? nil : "must be between \(range.lowerBound) and \(range.upperBound), found \($0)" }
    }
}

extension SettingCheck where Value == String {
    public static var notEmpty: Self { Self { $0.isEmpty ? "must not be empty" : nil } }
}

extension SettingCheck where Value == [String] {
    /// Every element is a topic prefix (`Topic.isValidPrefix`); `allowEmpty: false` also
    /// refuses "" (everything).
    public static func topicPrefixes(allowEmpty: Bool = true) -> Self {
        Self { list in
            list.first { !Topic.isValidPrefix($0) || (!allowEmpty && $0.isEmpty) }
                .map { "contains '\($0)', which is not a topic prefix: lower-case segments of a-z 0-9 _ - joined by dots" }
        }
    }

    /// Every element is a source id (one topic segment: `Topic.isValidSegment`), none twice.
    public static var sourceIds: Self {
        Self { list in
            var seen: Set<String> = []
            for s in list {
                guard Topic.isValidSegment(s) else { return "contains '\(s)', which is not a source id (1 to 64 of a-z, 0-9, '_', '-')" }
                guard seen.insert(s).inserted else { return "lists '\(s)' twice" }
            }
            return nil
        }
    }
}

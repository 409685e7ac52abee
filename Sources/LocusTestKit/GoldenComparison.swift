import Foundation

/// Compares event streams (recording-format JSON lines) the way `Tests/Golden/README.md` says:
/// numbers within a relative 1e-9 (absolute 1e-12 near zero), everything else exactly.
public enum GoldenComparison {
    public static let relativeTolerance = 1e-9
    public static let absoluteTolerance = 1e-12

    /// The first difference between two streams, as a message naming the line; nil if equal.
    public static func difference(stream actual: String, _ expected: String) -> String? {
        let a = lines(actual), e = lines(expected)
        for i in 0..<min(a.count, e.count) {
            if let d = difference(line: a[i], e[i]) { return "line \(i + 1): \(d)\n  actual:   \(a[i])\n  expected: \(e[i])" }
        }
        if a.count != e.count {
            let extra = a.count > e.count ? "extra line \(e.count + 1): \(a[e.count])" : "missing line \(a.count + 1): \(e[a.count])"
            return "\(a.count) lines, expected \(e.count); \(extra)"
        }
        return nil
    }

    public static func lines(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    /// Differences of two JSON texts; nil if equal within the tolerance.
    public static func difference(line a: String, _ b: String) -> String? {
        if a == b { return nil }
        guard let x = try? JSONSerialization.jsonObject(with: Data(a.utf8), options: [.fragmentsAllowed]),
              let y = try? JSONSerialization.jsonObject(with: Data(b.utf8), options: [.fragmentsAllowed]) else {
            return "not JSON"
        }
        return difference(x, y, path: "$")
    }

    static func difference(_ x: Any, _ y: Any, path: String) -> String? {
        switch (x, y) {
        case let (p as [String: Any], q as [String: Any]):
            if Set(p.keys) != Set(q.keys) { return "\(path): keys \(p.keys.sorted()) ≠ \(q.keys.sorted())" }
            for k in p.keys.sorted() {
                if let d = difference(p[k]!, q[k]!, path: path + "." + k) { return d }
            }
            return nil
        case let (p as [Any], q as [Any]):
            if p.count != q.count { return "\(path): \(p.count) elements ≠ \(q.count)" }
            for i in p.indices {
                if let d = difference(p[i], q[i], path: "\(path)[\(i)]") { return d }
            }
            return nil
        case let (p as NSNumber, q as NSNumber):
            // JSONSerialization gives booleans as NSNumber too: compare those exactly.
            let pb = isBool(p), qb = isBool(q)
            if pb || qb { return pb == qb && p.boolValue == q.boolValue ? nil : "\(path): \(p) ≠ \(q)" }
            let u = p.doubleValue, v = q.doubleValue
            let close = abs(u - v) <= max(absoluteTolerance, relativeTolerance * max(abs(u), abs(v)))
            return close ? nil : "\(path): \(u) ≠ \(v)"
        case let (p as String, q as String):
            return p == q ? nil : "\(path): \"\(p)\" ≠ \"\(q)\""
        case (is NSNull, is NSNull):
            return nil
        default:
            return "\(path): \(x) ≠ \(y)"
        }
    }

    /// Booleans from JSONSerialization are NSNumbers of Objective-C type `c` (char).
    static func isBool(_ n: NSNumber) -> Bool { String(cString: n.objCType) == "c" }
}

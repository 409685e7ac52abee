import LocusCore

/// The stored form of a `JSONValue`: compact JSON text with sorted keys.
///
/// Written with LocusCore's `JSONWriter` rather than `JSONEncoder` because a service commits
/// on every state change and `JSONEncoder` costs more than the SQLite work of a small commit.
/// Numbers are written in Swift's shortest round-trip form (integral values up to 2^53 as
/// integers), so a `Double` reads back bit-for-bit; NaN and infinities have no JSON form and
/// are rejected instead of being turned into `null` as `JSONValue.encoded()` would.
extension JSONValue {
    struct UnrepresentableNumber: Error {
        var value: Double
    }

    func storeText() throws -> String {
        var w = JSONWriter(capacity: 128)
        try write(to: &w)
        return w.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }

    private func write(to w: inout JSONWriter) throws {
        switch self {
        case .null: w.null()
        case .bool(let b): w.bool(b)
        case .number(let n):
            guard n.isFinite else { throw UnrepresentableNumber(value: n) }
            if n == n.rounded(), abs(n) <= 9_007_199_254_740_992, !(n == 0 && n.sign == .minus) {
                w.int(Int64(n))
            } else {
                w.rawValue(n.description.utf8)
            }
        case .string(let s): w.string(s)
        case .array(let a):
            w.beginArray()
            for v in a { try v.write(to: &w) }
            w.endArray()
        case .object(let o):
            w.beginObject()
            for k in o.keys.sorted() {
                w.key(k)
                try o[k]!.write(to: &w)
            }
            w.endObject()
        }
    }

    static func fromStoreText(_ text: String) throws -> JSONValue {
        try JSONValue.decode(Array(text.utf8))
    }
}

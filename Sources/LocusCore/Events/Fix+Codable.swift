/// Fixes are part of service states (the standard service's current estimate), which are
/// encoded with `Codable`: a fix is kept as its wire JSON, so its fields are declared once
/// (`write(to:)` and `init(from: inout JSONReader)`). Exact: a fix a service holds was decoded
/// from the wire, and writing it again gives the same digits.
extension Fix: Codable {
    public init(from decoder: any Decoder) throws {
        let bytes = Array(try decoder.singleValueContainer().decode(String.self).utf8)
        self = try bytes.withUnsafeBufferPointer { buffer in
            var reader = JSONReader(buffer)
            return try Fix(from: &reader)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var w = JSONWriter()
        write(to: &w)
        var c = encoder.singleValueContainer()
        try c.encode(String(decoding: w.bytes, as: UTF8.self))
    }
}

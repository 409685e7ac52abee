/// `JSONValue` through the hand-written `JSONReader`: for documents read once per message
/// (the `mqtt` source reads one per fix), where Foundation's decoder (`JSONValue.decode`) was
/// most of the source's time.
extension JSONValue {
    /// Reads one JSON document. Nesting is bounded by `JSONReader.maxDepth`; anything but
    /// white space after the value is an error. A repeated key keeps its first value, as
    /// Foundation's decoder does.
    public static func read(_ bytes: UnsafeBufferPointer<UInt8>) throws -> JSONValue {
        try JSONReader.read(bytes) { r in try r.readJSONValue() }
    }

    public static func read(_ bytes: [UInt8]) throws -> JSONValue {
        try bytes.withUnsafeBufferPointer { try read($0) }
    }
}

extension JSONReader {
    /// Reads the next value, whatever its kind.
    public mutating func readJSONValue() throws -> JSONValue {
        switch try nextKind() {
        case .null:
            guard readNull() else { throw error("expected null") }
            return .null
        case .bool: return .bool(try readBool())
        case .number: return .number(try readDouble())
        case .string: return .string(try readString())
        case .array:
            var items: [JSONValue] = []
            try readArray { r in items.append(try r.readJSONValue()) }
            return .array(items)
        case .object:
            var members: [String: JSONValue] = [:]
            try readObject { r, key in
                let value = try r.readJSONValue()
                let name = key.string
                if members[name] == nil { members[name] = value }
            }
            return .object(members)
        }
    }
}

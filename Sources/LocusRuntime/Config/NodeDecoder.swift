import Foundation
import LocusCore
import Yams

/// A `Decoder` over a parsed config node: how plugins and the hub block read their settings.
///
/// It replaces Yams' `YAMLDecoder`, which behaves the same for what Locus decodes but builds its
/// lookup keys with Yams' default tag resolver: the first decode compiles that resolver's seven
/// regular expressions (ICU), ~0.7 MB of the daemon's resident memory for its whole life. Here
/// keys are matched by their text, mapping lookups follow `ConfigYAML.pairs` (merge keys
/// expanded, the last of equal keys wins — the loader refuses duplicates before), scalars are
/// built by Yams' `ScalarConstructible` (`Int.construct`, `Bool.construct`, …) exactly as
/// `YAMLDecoder` does, and errors are the same `DecodingError`s with the same coding paths, so
/// `PluginBuildErrors` positions and words them as before.
struct NodeDecoder {
    /// Decodes `type` from `node`; `userInfo` reaches every nested decoder.
    func decode<T: Decodable>(_ type: T.Type, from node: Node, userInfo: [CodingUserInfoKey: Any] = [:]) throws -> T {
        try NodeValueDecoder(node: node, userInfo: userInfo, codingPath: []).decode(type)
    }
}

private struct NodeValueDecoder: Decoder, SingleValueDecodingContainer, JSONValueProvidingDecoder {
    let node: Node
    let userInfo: [CodingUserInfoKey: Any]
    let codingPath: [any CodingKey]

    init(node: Node, userInfo: [CodingUserInfoKey: Any], codingPath: [any CodingKey]) {
        self.node = node
        self.userInfo = userInfo
        self.codingPath = codingPath
    }

    func child(_ node: Node, _ key: any CodingKey) -> NodeValueDecoder {
        NodeValueDecoder(node: node, userInfo: userInfo, codingPath: codingPath + [key])
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .mapping(let mapping) = node else { throw mismatch(Node.Mapping.self) }
        return KeyedDecodingContainer(NodeKeyedContainer<Key>(decoder: self, pairs: ConfigYAML.pairs(mapping)))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .sequence(let sequence) = node else { throw mismatch(Node.Sequence.self) }
        return NodeUnkeyedContainer(decoder: self, items: sequence)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { node.isNull }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        guard let scalarType = type as? any ScalarConstructible.Type else { return try T(from: self) }
        guard case .scalar(let scalar) = node else { throw mismatch(Node.Scalar.self) }
        guard let value = scalarType.construct(from: scalar) as? T else { throw mismatch(type) }
        return value
    }

    /// The node as a `JSONValue`, as trying Bool, Double, String, array and object in turn
    /// would give it, without a thrown error per wrong guess.
    func decodeJSONValue() throws -> JSONValue {
        switch node {
        case .scalar(let scalar):
            if node.isNull { return .null }
            if let b = Bool.construct(from: scalar) { return .bool(b) }
            if let d = Double.construct(from: scalar) { return .number(d) }
            return .string(String.construct(from: scalar) ?? scalar.string)
        case .sequence(let sequence):
            return .array(try sequence.enumerated().map { index, item in
                try child(item, JSONValueIndexKey(intValue: index)).decodeJSONValue()
            })
        case .mapping(let mapping):
            var object: [String: JSONValue] = [:]
            for pair in ConfigYAML.pairs(mapping) {
                guard let key = pair.key.stringValue else { continue }
                object[key] = try child(pair.value, JSONValueIndexKey(stringValue: key)).decodeJSONValue()
            }
            return .object(object)
        case .alias:
            throw mismatch(Node.Mapping.self)
        }
    }

    /// Yams' wording, so messages read as before.
    func mismatch(_ expected: Any.Type) -> DecodingError {
        let found: Any.Type
        switch node {
        case .scalar: found = Node.Scalar.self
        case .mapping: found = Node.Mapping.self
        case .sequence: found = Node.Sequence.self
        case .alias: found = Node.Alias.self
        }
        return .typeMismatch(expected, .init(codingPath: codingPath, debugDescription: "Expected to decode \(expected) but found \(found) instead."))
    }
}

private struct NodeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: NodeValueDecoder
    let pairs: [(key: Node, value: Node)]

    var codingPath: [any CodingKey] { decoder.codingPath }
    var allKeys: [Key] { pairs.compactMap { $0.key.stringValue.flatMap(Key.init(stringValue:)) } }

    func contains(_ key: Key) -> Bool { value(key) != nil }

    private func value(_ key: any CodingKey) -> Node? {
        pairs.last { $0.key.stringValue == key.stringValue }?.value
    }

    private func child(_ key: any CodingKey) throws -> NodeValueDecoder {
        guard let node = value(key) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
        }
        return decoder.child(node, key)
    }

    func decodeNil(forKey key: Key) throws -> Bool { try child(key).decodeNil() }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try child(key).decode(type) }
    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try child(key).container(keyedBy: type)
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { try child(key).unkeyedContainer() }
    func superDecoder() throws -> any Decoder { try child(IndexKey(stringValue: "super")) }
    func superDecoder(forKey key: Key) throws -> any Decoder { try child(key) }
}

private struct NodeUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: NodeValueDecoder
    let items: Node.Sequence
    var currentIndex = 0

    init(decoder: NodeValueDecoder, items: Node.Sequence) {
        self.decoder = decoder
        self.items = items
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    /// Runs `body` on the next item's decoder and moves past it; `wanted` names what was asked
    /// for when there is no next item.
    private mutating func next<T>(_ wanted: Any.Type, _ body: (NodeValueDecoder) throws -> T) throws -> T {
        let key = IndexKey(index: currentIndex)
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(wanted, .init(codingPath: codingPath + [key], debugDescription: "Unkeyed container is at end."))
        }
        let value = try body(decoder.child(items[currentIndex], key))
        currentIndex += 1
        return value
    }

    mutating func decodeNil() throws -> Bool { try next(Any?.self) { $0.decodeNil() } }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(type) { try $0.decode(type) } }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next(KeyedDecodingContainer<NestedKey>.self) { try $0.container(keyedBy: type) }
    }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next((any UnkeyedDecodingContainer).self) { try $0.unkeyedContainer() }
    }
    mutating func superDecoder() throws -> any Decoder { try next((any Decoder).self) { $0 } }
}

/// A list position (`intValue`) or a fixed name, as Yams' own key type gives them.
private struct IndexKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { self.init(index: intValue) }
    init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }
}

/// A coding path element for `decodeJSONValue`'s children (an index or a key).
private struct JSONValueIndexKey: CodingKey {
    let stringValue: String
    let intValue: Int?
    init(intValue: Int) { stringValue = "Index \(intValue)"; self.intValue = intValue }
    init(stringValue: String) { self.stringValue = stringValue; intValue = nil }
}

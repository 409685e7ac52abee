/// One compiled (sub)schema of a `PayloadSchema`. Immutable once compiled.
final class PayloadSchemaNode: Sendable {
    enum Kind: String, Sendable { case object, array, string, number, integer, boolean, null }

    /// Keywords that say nothing about validity (draft 2020-12 annotations, Locus's own `x-…`).
    static let annotations: Set<String> = ["$schema", "$id", "$comment", "title", "description", "format", "default", "examples", "deprecated"]
    /// Nesting of subschemas accepted at most (Locus's deepest is 4).
    static let maxDepth = 16

    let types: [Kind]?
    let properties: [String: PayloadSchemaNode]
    let required: [String]
    /// nil: any key; false (`closed`): only `properties`.
    let closed: Bool
    let extraProperties: PayloadSchemaNode?
    let items: PayloadSchemaNode?
    let minItems: Int?, maxItems: Int?
    let minLength: Int?, maxLength: Int?
    let pattern: PayloadPattern?
    let minimum: Double?, maximum: Double?, exclusiveMinimum: Double?, exclusiveMaximum: Double?
    let allowed: [JSONValue]?
    let minProperties: Int?, maxProperties: Int?
    /// Each key's schema (`propertyNames`: keys are strings, so lengths and patterns).
    let propertyNames: PayloadSchemaNode?
    /// `dependentRequired`: when the key is present, these must be too.
    let dependentRequired: [String: [String]]
    let allOf: [PayloadSchemaNode], anyOf: [PayloadSchemaNode], oneOf: [PayloadSchemaNode]
    let not: PayloadSchemaNode?
    let ifNode: PayloadSchemaNode?, thenNode: PayloadSchemaNode?, elseNode: PayloadSchemaNode?
    /// `true` / `false` schemas.
    let acceptsNothing: Bool

    private init(types: [Kind]? = nil, properties: [String: PayloadSchemaNode] = [:], required: [String] = [], closed: Bool = false,
                 extraProperties: PayloadSchemaNode? = nil, items: PayloadSchemaNode? = nil, minItems: Int? = nil, maxItems: Int? = nil,
                 minLength: Int? = nil, maxLength: Int? = nil, pattern: PayloadPattern? = nil,
                 minimum: Double? = nil, maximum: Double? = nil, exclusiveMinimum: Double? = nil, exclusiveMaximum: Double? = nil,
                 allowed: [JSONValue]? = nil, minProperties: Int? = nil, maxProperties: Int? = nil,
                 propertyNames: PayloadSchemaNode? = nil, dependentRequired: [String: [String]] = [:], allOf: [PayloadSchemaNode] = [], anyOf: [PayloadSchemaNode] = [], oneOf: [PayloadSchemaNode] = [],
                 not: PayloadSchemaNode? = nil, ifNode: PayloadSchemaNode? = nil, thenNode: PayloadSchemaNode? = nil,
                 elseNode: PayloadSchemaNode? = nil, acceptsNothing: Bool = false) {
        self.types = types; self.properties = properties; self.required = required; self.closed = closed
        self.extraProperties = extraProperties; self.items = items; self.minItems = minItems; self.maxItems = maxItems
        self.minLength = minLength; self.maxLength = maxLength; self.pattern = pattern
        self.minimum = minimum; self.maximum = maximum; self.exclusiveMinimum = exclusiveMinimum; self.exclusiveMaximum = exclusiveMaximum
        self.allowed = allowed; self.minProperties = minProperties; self.maxProperties = maxProperties
        self.propertyNames = propertyNames; self.dependentRequired = dependentRequired; self.allOf = allOf; self.anyOf = anyOf; self.oneOf = oneOf; self.not = not
        self.ifNode = ifNode; self.thenNode = thenNode; self.elseNode = elseNode; self.acceptsNothing = acceptsNothing
    }

    static func compile(_ json: JSONValue, defs: [String: JSONValue], depth: Int) throws(PayloadSchemaError) -> PayloadSchemaNode {
        guard depth < maxDepth else { throw PayloadSchemaError("subschemas nest deeper than \(maxDepth)") }
        if case .bool(let b) = json { return PayloadSchemaNode(acceptsNothing: !b) }
        guard case .object(var o) = json else { throw PayloadSchemaError("a subschema must be an object or a boolean") }
        // `$ref` to a definition: its keywords, with this node's own beside them (2020-12 applies both).
        if let ref = o.removeValue(forKey: "$ref") {
            guard let r = ref.stringValue, r.hasPrefix("#/$defs/"), let target = defs[String(r.dropFirst(8))],
                  case .object(let t) = target else { throw PayloadSchemaError("$ref \(ref) is not a #/$defs/ definition") }
            o.merge(t) { mine, _ in mine }
        }
        func sub(_ key: String) throws(PayloadSchemaError) -> PayloadSchemaNode? {
            guard let v = o[key] else { return nil }
            return try compile(v, defs: defs, depth: depth + 1)
        }
        func subs(_ key: String) throws(PayloadSchemaError) -> [PayloadSchemaNode] {
            guard let v = o[key] else { return [] }
            guard case .array(let a) = v else { throw PayloadSchemaError("\(key) must be an array") }
            var out: [PayloadSchemaNode] = []
            for x in a { out.append(try compile(x, defs: defs, depth: depth + 1)) }
            return out
        }
        func count(_ key: String) throws(PayloadSchemaError) -> Int? {
            guard let v = o[key] else { return nil }
            guard let n = v.doubleValue, n >= 0, n < 1e9, n == n.rounded() else { throw PayloadSchemaError("\(key) must be a count") }
            return Int(n)
        }
        func number(_ key: String) throws(PayloadSchemaError) -> Double? {
            guard let v = o[key] else { return nil }
            guard let n = v.doubleValue else { throw PayloadSchemaError("\(key) must be a number") }
            return n
        }
        let known: Set<String> = ["type", "properties", "required", "additionalProperties", "items", "minItems", "maxItems",
                                  "minLength", "maxLength", "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                                  "enum", "const", "minProperties", "maxProperties", "propertyNames", "dependentRequired", "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "$defs"]
        for key in o.keys where !known.contains(key) && !annotations.contains(key) && !key.hasPrefix("x-") {
            throw PayloadSchemaError("keyword \(key) is not implemented")
        }
        var types: [Kind]?
        switch o["type"] {
        case nil: break
        case .string(let t)?:
            guard let k = Kind(rawValue: t) else { throw PayloadSchemaError("unknown type \(t)") }
            types = [k]
        case .array(let ts)?:
            var ks: [Kind] = []
            for t in ts {
                guard let s = t.stringValue, let k = Kind(rawValue: s) else { throw PayloadSchemaError("unknown type \(t)") }
                ks.append(k)
            }
            types = ks
        default: throw PayloadSchemaError("type must be a string or an array")
        }
        var properties: [String: PayloadSchemaNode] = [:]
        if case .object(let ps)? = o["properties"] {
            for (k, v) in ps { properties[k] = try compile(v, defs: defs, depth: depth + 1) }
        }
        var required: [String] = []
        if case .array(let rs)? = o["required"] { required = rs.compactMap(\.stringValue) }
        var closed = false
        var extra: PayloadSchemaNode?
        switch o["additionalProperties"] {
        case .bool(false)?: closed = true
        case nil, .bool(true)?: break
        case let v?: extra = try compile(v, defs: defs, depth: depth + 1)
        }
        var allowed: [JSONValue]?
        if case .array(let e)? = o["enum"] { allowed = e }
        if let c = o["const"] { allowed = [c] }
        var pattern: PayloadPattern?
        if let p = o["pattern"] {
            guard let text = p.stringValue else { throw PayloadSchemaError("pattern must be a string") }
            pattern = try PayloadPattern(text)
        }
        var dependent: [String: [String]] = [:]
        if let d = o["dependentRequired"] {
            guard case .object(let deps) = d else { throw PayloadSchemaError("dependentRequired must be an object") }
            for (k, v) in deps {
                guard case .array(let names) = v else { throw PayloadSchemaError("dependentRequired.\(k) must be an array") }
                dependent[k] = names.compactMap(\.stringValue)
            }
        }
        return PayloadSchemaNode(
            types: types, properties: properties, required: required, closed: closed, extraProperties: extra,
            items: try sub("items"), minItems: try count("minItems"), maxItems: try count("maxItems"),
            minLength: try count("minLength"), maxLength: try count("maxLength"), pattern: pattern,
            minimum: try number("minimum"), maximum: try number("maximum"),
            exclusiveMinimum: try number("exclusiveMinimum"), exclusiveMaximum: try number("exclusiveMaximum"),
            allowed: allowed, minProperties: try count("minProperties"), maxProperties: try count("maxProperties"),
            propertyNames: try sub("propertyNames"), dependentRequired: dependent, allOf: try subs("allOf"), anyOf: try subs("anyOf"), oneOf: try subs("oneOf"),
            not: try sub("not"), ifNode: try sub("if"), thenNode: try sub("then"), elseNode: try sub("else"))
    }

    /// The first problem of `value` at `path`; nil if it is valid.
    func problem(_ value: JSONValue, at path: String) -> String? {
        if acceptsNothing { return "\(path) is not allowed" }
        if let types, !types.contains(where: { Self.matches(value, $0) }) {
            return "\(path) must be \(types.map(\.rawValue).joined(separator: " or "))"
        }
        if let allowed, !allowed.contains(value) {
            return allowed.count == 1 ? "\(path) must be \(Self.text(allowed[0]))"
                : "\(path) must be one of \(allowed.map(Self.text).joined(separator: ", "))"
        }
        switch value {
        case .string(let s):
            if minLength != nil || maxLength != nil {
                // JSON Schema counts characters (code points), not bytes.
                let n = s.unicodeScalars.count
                if let minLength, n < minLength { return "\(path) is shorter than \(minLength) characters" }
                if let maxLength, n > maxLength { return "\(path) is longer than \(maxLength) characters (\(n))" }
            }
            if let pattern, !pattern.matches(s) { return "\(path) does not match \(pattern.text)" }
        case .number(let n):
            if let minimum, n < minimum { return "\(path) is below \(minimum)" }
            if let maximum, n > maximum { return "\(path) is above \(maximum)" }
            if let exclusiveMinimum, n <= exclusiveMinimum { return "\(path) must be above \(exclusiveMinimum)" }
            if let exclusiveMaximum, n >= exclusiveMaximum { return "\(path) must be below \(exclusiveMaximum)" }
        case .array(let a):
            if let minItems, a.count < minItems { return "\(path) has fewer than \(minItems) items" }
            if let maxItems, a.count > maxItems { return "\(path) has more than \(maxItems) items (\(a.count))" }
            if let items {
                for (i, x) in a.enumerated() { if let p = items.problem(x, at: "\(path)[\(i)]") { return p } }
            }
        case .object(let o):
            for key in required where o[key] == nil { return "\(path).\(key) is missing" }
            if let minProperties, o.count < minProperties { return "\(path) has fewer than \(minProperties) keys" }
            if let maxProperties, o.count > maxProperties { return "\(path) has more than \(maxProperties) keys (\(o.count))" }
            for (key, needs) in dependentRequired.sorted(by: { $0.key < $1.key }) where o[key] != nil {
                for other in needs where o[other] == nil { return "\(path).\(other) is missing (\(path).\(key) needs it)" }
            }
            for (key, v) in o.sorted(by: { $0.key < $1.key }) {
                if let propertyNames, let p = propertyNames.problem(.string(key), at: "\(path) key '\(PayloadSchema.shown(key))'") {
                    return p
                }
                if let node = properties[key] {
                    if let p = node.problem(v, at: "\(path).\(key)") { return p }
                } else if closed {
                    return "\(path) has a key the schema does not allow: '\(PayloadSchema.shown(key))'"
                } else if let extraProperties, let p = extraProperties.problem(v, at: "\(path).\(key)") {
                    return p
                }
            }
        default:
            break
        }
        for node in allOf { if let p = node.problem(value, at: path) { return p } }
        if !anyOf.isEmpty, !anyOf.contains(where: { $0.problem(value, at: path) == nil }) {
            return anyOf.first.flatMap { $0.problem(value, at: path) } ?? "\(path) matches none of anyOf"
        }
        if !oneOf.isEmpty {
            let passing = oneOf.filter { $0.problem(value, at: path) == nil }.count
            if passing != 1 { return "\(path) matches \(passing) of oneOf's \(oneOf.count) schemas; it must match exactly one" }
        }
        if let not, not.problem(value, at: path) == nil { return "\(path) matches a schema it must not (not)" }
        if let ifNode {
            if ifNode.problem(value, at: path) == nil {
                if let thenNode, let p = thenNode.problem(value, at: path) { return p }
            } else if let elseNode, let p = elseNode.problem(value, at: path) {
                return p
            }
        }
        return nil
    }

    static func matches(_ v: JSONValue, _ kind: Kind) -> Bool {
        switch (v, kind) {
        case (.object, .object), (.array, .array), (.string, .string), (.number, .number), (.bool, .boolean), (.null, .null): true
        case (.number(let n), .integer): n.isFinite && n == n.rounded()
        default: false
        }
    }

    static func text(_ v: JSONValue) -> String { String(decoding: v.encoded(), as: UTF8.self) }
}

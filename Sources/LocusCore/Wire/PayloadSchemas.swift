/// Every Locus event type's schema, compiled (`PayloadSchema`): what the hub checks an outside
/// publisher's payload against. The texts are generated from schemas/ by tools/payloadgen.py.
public struct PayloadSchemas: Sendable {
    private let byType: [String: PayloadSchema]

    /// Locus's own schemas, compiled once per process. A schema that does not compile is a
    /// build defect: the unit tests compile every one.
    public static let locus = PayloadSchemas(byType: compileAll().compactMapValues { try? $0.get() })

    init(byType: [String: PayloadSchema]) {
        self.byType = byType
    }

    /// Each type's schema, or the error compiling it (for the tests).
    public static func compileAll() -> [String: Result<PayloadSchema, PayloadSchemaError>] {
        var out: [String: Result<PayloadSchema, PayloadSchemaError>] = [:]
        for (type, text) in texts {
            do {
                let json = try JSONValue.read(Array(text.utf8))
                out[type] = .success(try PayloadSchema(json: json))
            } catch let e as PayloadSchemaError {
                out[type] = .failure(e)
            } catch {
                out[type] = .failure(PayloadSchemaError("not JSON: \(error)"))
            }
        }
        return out
    }

    /// The schema of `eventType`; nil for a type Locus has none for (an external plugin's own).
    public func schema(for eventType: String) -> PayloadSchema? { byType[eventType] }

    public var eventTypes: [String] { byType.keys.sorted() }
}

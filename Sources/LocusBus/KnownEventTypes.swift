import LocusCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The event types a registry knows, laid out for lookups straight from message bytes: no
/// String is built and nothing is retained per lookup (it runs for every message).
struct KnownEventTypes {
    /// Sorted type names; an index into this array identifies a type.
    let names: [String]
    /// The decoder of each type, if the registry has one (raw-only types have none).
    let decoders: [PayloadRegistry.Decoder?]
    /// Every name's UTF-8, concatenated; name k is `bytes[offsets[k]..<offsets[k + 1]]`.
    private let bytes: [UInt8]
    private let offsets: [Int]

    init(_ registry: PayloadRegistry) {
        names = registry.eventTypes
        decoders = names.map { registry.decoder(for: $0) }
        bytes = names.flatMap { Array($0.utf8) }
        offsets = names.reduce(into: [0]) { $0.append($0.last! + $1.utf8.count) }
    }

    /// Index of the known type a JSON string token (quotes included) names, if any.
    func index(ofQuoted quoted: UnsafeBufferPointer<UInt8>) -> Int? {
        let inner = UnsafeBufferPointer(rebasing: quoted[1..<(quoted.count - 1)])
        if inner.contains(0x5C) {
            // Escaped characters in a type name: rare enough to decode properly.
            return names.firstIndex(of: MessageValidator.typeName(quoted))
        }
        return bytes.withUnsafeBufferPointer { table in
            offsets.withUnsafeBufferPointer { offsets in
                for k in 0..<(offsets.count - 1) where offsets[k + 1] - offsets[k] == inner.count {
                    if inner.count == 0 || memcmp(table.baseAddress! + offsets[k], inner.baseAddress!, inner.count) == 0 { return k }
                }
                return nil
            }
        }
    }
}

import CNATS

/// libnats, which Locus opens only when a configuration uses NATS (see CNATS.h).
public enum NATSLibrary {
    /// Opens libnats once per process. Throws, with the loader's message, when it is not installed.
    public static func load() throws {
        var buffer = [CChar](repeating: 0, count: 256)
        guard locus_nats_load(&buffer, buffer.count) != 0 else { return }
        let reason = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        throw NATSError(operation: "load libnats", message: "\(reason) (install Debian's libnats3.4)")
    }
}

import Foundation

/// Subscription tokens that let an in-process subscriber know the hub has its subscriptions.
///
/// A subscriber subscribes to its real prefixes first and to a token last. Subscriptions from
/// one connection reach the hub in order, so once the hub has seen the token all earlier
/// prefixes are active. Topics never start with NUL, so a token never matches real traffic.
public enum SyncToken {
    /// `"\u{0}sync."`: the start of every token.
    public static let prefix = "\u{0}sync."
    static let prefixBytes: [UInt8] = Array(prefix.utf8)

    /// A new token: the prefix followed by `id` (a fresh UUID by default).
    public static func make(id: String = UUID().uuidString) -> String { prefix + id }

    /// True if a subscription (without its leading `\x01`) or a topic is a sync token.
    public static func isToken(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= prefixBytes.count else { return false }
        for i in 0..<prefixBytes.count where bytes[i] != prefixBytes[i] { return false }
        return true
    }
}

import Foundation

/// The one rule for hosts in Locus's addresses — ZeroMQ `tcp://host:port` endpoints (the hub,
/// the catch-up and control sockets), `host:port` of HTTP servers (`hub.metrics`, the `web`
/// sink, `locus view`) — so that `locus check` and `locus run` decide alike for every kind.
public enum HostAddress {
    /// `host:port` taken apart: `[v6]:port` (host without the brackets) or `name:port`; nil when
    /// there is no port separator where one must be.
    public static func split(_ text: Substring) -> (host: Substring, port: Substring, bracketed: Bool)? {
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let after = text[text.index(after: close)...]
            guard after.hasPrefix(":") else { return nil }
            return (text[text.index(after: text.startIndex)..<close], after.dropFirst(), true)
        }
        guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else { return nil }
        return (text[..<colon], text[text.index(after: colon)...], false)
    }

    /// A port number as written in an address: 1 to 5 ASCII digits, 1 to 65535 (no sign, no
    /// spaces, not `*`: callers that take a wildcard say so).
    public static func port(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 5, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              let p = Int(text), (1...65535).contains(p) else { return nil }
        return p
    }

    /// A host name (letters, digits, '-', '_', labels joined by dots), an IPv4 address in dotted
    /// quad, or an IPv6 address (without brackets). Not `*`: callers that take a wildcard say so.
    public static func isValidHost(_ host: Substring) -> Bool {
        guard !host.isEmpty, host.utf8.count <= 253 else { return false }
        if host.contains(":") { return ipv6(host) != nil }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        if labels.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }) {
            // Looks numeric: must be a dotted quad.
            return ipv4(host) != nil
        }
        return labels.allSatisfy { label in
            !label.isEmpty && label.utf8.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
        }
    }

    /// True only for hosts that are loopback whatever the network says: a literal address in
    /// 127.0.0.0/8 or ::1 (also as ::ffff:127.x.x.x), `localhost`, and `lo` (ZeroMQ binds an
    /// interface by name). A host *name* is never loopback, even `127.example`: what it resolves
    /// to is up to DNS and /etc/hosts, and can change after `locus check` said yes.
    public static func isLoopback(_ host: Substring) -> Bool {
        var h = host
        if h.hasPrefix("[") && h.hasSuffix("]") { h = h.dropFirst().dropLast() }
        if h == "localhost" || h == "lo" { return true }
        if let a = ipv4(h) { return a.0 == 127 }
        if let a = ipv6(h) {
            let loopback: [UInt8] = Array(repeating: 0, count: 15) + [1]
            let mapped: [UInt8] = Array(repeating: 0, count: 10) + [0xFF, 0xFF]
            return a == loopback || (Array(a.prefix(12)) == mapped && a[12] == 127)
        }
        return false
    }

    /// The four bytes of a dotted-quad IPv4 address (each part 1 to 3 digits, at most 255).
    static func ipv4(_ host: Substring) -> (UInt8, UInt8, UInt8, UInt8)? {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for p in parts {
            guard !p.isEmpty, p.count <= 3, p.allSatisfy({ $0.isASCII && $0.isNumber }), let v = Int(p), v <= 255 else { return nil }
            bytes.append(UInt8(v))
        }
        return (bytes[0], bytes[1], bytes[2], bytes[3])
    }

    /// The sixteen bytes of an IPv6 address, as inet_pton reads it.
    static func ipv6(_ host: Substring) -> [UInt8]? {
        guard host.utf8.count <= 45 else { return nil }
        var address = in6_addr()
        guard inet_pton(AF_INET6, String(host), &address) == 1 else { return nil }
        return withUnsafeBytes(of: &address) { Array($0) }
    }
}

/// Eddystone-URL's compression (also UriBeacon's): a scheme-prefix byte, then printable ASCII
/// with single bytes standing for common domain endings (Eddystone spec, eddystone-url/README.md).
public enum EddystoneURLCodec {
    public static let schemes = ["http://www.", "https://www.", "http://", "https://"]
    public static let expansions = [".com/", ".org/", ".edu/", ".net/", ".info/", ".biz/", ".gov/",
                                    ".com", ".org", ".edu", ".net", ".info", ".biz", ".gov"]

    /// The URL, or nil for an unknown scheme or a reserved byte (0x0e–0x20, 0x7f–0xff).
    public static func decode(scheme: UInt8, body: some Sequence<UInt8>) -> String? {
        if let url = body.withContiguousStorageIfAvailable({ decode(scheme: scheme, bytes: $0) }) { return url }
        return Array(body).withUnsafeBufferPointer { decode(scheme: scheme, bytes: $0) }
    }

    static func decode(scheme: UInt8, bytes body: UnsafeBufferPointer<UInt8>) -> String? {
        guard Int(scheme) < schemes.count else { return nil }
        // Measured first, then written straight into the String's storage: appending piece by
        // piece costs more than the rest of an advertisement's decoding.
        var length = schemeBytes[Int(scheme)].count
        for b in body {
            if Int(b) < expansionBytes.count { length += expansionBytes[Int(b)].count }
            else if b > 0x20, b < 0x7F { length += 1 }
            else { return nil }
        }
        return String(unsafeUninitializedCapacity: length) { out in
            var i = 0
            func put(_ bytes: [UInt8]) { for c in bytes { out[i] = c; i += 1 } }
            put(schemeBytes[Int(scheme)])
            for b in body {
                if Int(b) < expansionBytes.count { put(expansionBytes[Int(b)]) } else { out[i] = b; i += 1 }
            }
            return i
        }
    }

    static let schemeBytes = schemes.map { Array($0.utf8) }
    static let expansionBytes = expansions.map { Array($0.utf8) }

    /// The scheme byte and encoded body of `url`, or nil if it has no known scheme or a
    /// character that cannot be sent (outside 0x21–0x7e). Scheme and host are lower-cased
    /// (they are case-insensitive); the path keeps its case. Expansions are taken greedily in
    /// table order, so `.com/` wins over `.com`. The result may exceed the 17 bytes a frame holds.
    public static func encode(_ url: String) -> (scheme: UInt8, body: [UInt8])? {
        let u = Array(url.utf8)
        // The host runs from after "://" to the next "/".
        guard let colon = (0..<max(u.count - 2, 0)).first(where: { u[$0] == 0x3A && u[$0 + 1] == 0x2F && u[$0 + 2] == 0x2F })
        else { return nil }
        var hostEnd = colon + 3
        while hostEnd < u.count, u[hostEnd] != UInt8(ascii: "/") { hostEnd += 1 }
        let lowered = u[..<hostEnd].map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 } + u[hostEnd...]
        // Longest scheme first: "http://www." before "http://".
        var scheme: UInt8?
        var i = 0
        for (code, s) in schemes.enumerated().sorted(by: { $0.element.utf8.count > $1.element.utf8.count }) {
            let sb = Array(s.utf8)
            if lowered.starts(with: sb) { scheme = UInt8(code); i = sb.count; break }
        }
        guard let scheme else { return nil }
        var body: [UInt8] = []
        outer: while i < lowered.count {
            for (code, e) in expansionBytes.enumerated() where lowered[i...].starts(with: e) {
                body.append(UInt8(code)); i += e.count
                continue outer
            }
            guard lowered[i] > 0x20, lowered[i] < 0x7F else { return nil }
            body.append(lowered[i]); i += 1
        }
        return (scheme, body)
    }
}

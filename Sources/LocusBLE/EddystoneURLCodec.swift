/// Eddystone-URL's compression (also UriBeacon's): a scheme-prefix byte, then printable ASCII
/// with single bytes standing for common domain endings.
public enum EddystoneURLCodec {
    public static let schemes = ["http://www.", "https://www.", "http://", "https://"]
    public static let expansions = [".com/", ".org/", ".edu/", ".net/", ".info/", ".biz/", ".gov/",
                                    ".com", ".org", ".edu", ".net", ".info", ".biz", ".gov"]

    /// The URL, or nil for an unknown scheme or a reserved byte (0x0e–0x20, 0x7f–0xff).
    public static func decode(scheme: UInt8, body: some Sequence<UInt8>) -> String? {
        guard Int(scheme) < schemes.count else { return nil }
        var url = schemes[Int(scheme)]
        for b in body {
            if Int(b) < expansions.count { url += expansions[Int(b)] }
            else if b > 0x20, b < 0x7F { url.unicodeScalars.append(Unicode.Scalar(b)) }
            else { return nil }
        }
        return url
    }
}

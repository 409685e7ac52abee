import CZeroMQ

/// A 32-byte CURVE key (public or secret), and its Z85 text form (40 characters), as libzmq,
/// pyzmq and czmq write them.
public struct CurveKey: Sendable, Hashable, CustomStringConvertible {
    /// The key's 32 bytes.
    public let bytes: [UInt8]

    /// Length of a key in bytes and in Z85 characters.
    public static let byteCount = 32
    public static let textCount = 40

    /// nil unless `bytes` has exactly 32 bytes.
    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = bytes
    }

    /// Decodes the 40-character Z85 form; nil for any other length or a character outside Z85's
    /// alphabet (libzmq's decoder checks both).
    public init?(z85 text: String) {
        let chars = Array(text.utf8)
        guard chars.count == Self.textCount, chars.allSatisfy({ Self.isZ85Character($0) }) else { return nil }
        var out = [UInt8](repeating: 0, count: Self.byteCount)
        let ok = (chars.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { text in
            out.withUnsafeMutableBufferPointer { zmq_z85_decode($0.baseAddress, text.baseAddress) != nil }
        }
        guard ok else { return nil }
        bytes = out
    }

    /// The 40-character Z85 form.
    public var z85: String {
        var text = [CChar](repeating: 0, count: Self.textCount + 1)
        bytes.withUnsafeBufferPointer { _ = zmq_z85_encode(&text, $0.baseAddress, Self.byteCount) }
        return String(cString: text)
    }

    /// Never the key itself: a secret key must not end up in a log line by accident.
    public var description: String { "CurveKey(\(z85.prefix(8))…)" }

    /// A new keypair from libzmq (which uses libsodium's random source).
    public static func keypair() throws -> (publicKey: CurveKey, secretKey: CurveKey) {
        var pub = [CChar](repeating: 0, count: textCount + 1)
        var sec = [CChar](repeating: 0, count: textCount + 1)
        guard zmq_curve_keypair(&pub, &sec) == 0 else {
            throw ZMQError.last("generate a CURVE keypair (is libzmq built with CURVE? zmq_has(\"curve\"))")
        }
        guard let p = CurveKey(z85: String(cString: pub)), let s = CurveKey(z85: String(cString: sec)) else {
            throw ZMQError(code: EINVAL, operation: "generate a CURVE keypair", message: "libzmq returned a malformed key")
        }
        return (p, s)
    }

    /// The public key that belongs to this secret key.
    public func publicKey() throws -> CurveKey {
        var sec = z85.utf8CString.map { $0 }
        var pub = [CChar](repeating: 0, count: Self.textCount + 1)
        guard zmq_curve_public(&pub, &sec) == 0, let key = CurveKey(z85: String(cString: pub)) else {
            throw ZMQError.last("derive a CURVE public key")
        }
        return key
    }

    /// True where libzmq supports CURVE (Debian's libzmq5 does: it is built with libsodium).
    public static var isAvailable: Bool { zmq_has("curve") != 0 }

    /// Z85's 85 characters: 0-9 a-z A-Z . - : + = ^ ! / * ? & < > ( ) [ ] { } @ % $ #
    static func isZ85Character(_ c: UInt8) -> Bool {
        switch c {
        case 0x30...0x39, 0x61...0x7A, 0x41...0x5A: return true
        default: return Array(".-:+=^!/*?&<>()[]{}@%$#".utf8).contains(c)
        }
    }
}

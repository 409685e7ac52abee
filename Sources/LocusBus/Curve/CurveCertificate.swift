import Foundation

/// A CURVE certificate file in the ZPL format czmq and pyzmq's `zmq.auth` write and read:
/// `NAME.key` holds the public key, `NAME.key_secret` the public and the secret key.
///
/// ```
/// #   ZeroMQ CURVE Public Certificate
/// metadata
/// curve
///     public-key = "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7"
/// ```
///
/// Reading follows pyzmq's `load_certificate` (comment lines skipped, the first `public-key`
/// and `secret-key` lines taken, quotes trimmed), so a file one of them reads, the other reads.
public struct CurveCertificate: Sendable, Equatable {
    public var publicKey: CurveKey
    /// Present in a secret certificate (`.key_secret`) only.
    public var secretKey: CurveKey?

    /// Largest certificate file read; real ones are about 400 bytes.
    public static let maxFileBytes = 64 << 10

    public init(publicKey: CurveKey, secretKey: CurveKey? = nil) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    /// Why a certificate could not be read.
    public struct ReadError: Error, CustomStringConvertible, Sendable, Equatable {
        public var description: String
        init(_ d: String) { description = d }
    }

    /// Parses a certificate's text. Never traps; every problem is a `ReadError` saying what is wrong.
    public static func parse(_ data: [UInt8]) -> Result<CurveCertificate, ReadError> {
        guard data.count <= maxFileBytes else { return .failure(ReadError("is \(data.count) bytes; a certificate is under \(maxFileBytes)")) }
        var publicText: String?
        var secretText: String?
        for rawLine in data.split(separator: 0x0A, omittingEmptySubsequences: true) {
            let line = trim(rawLine)
            if line.first == 0x23 { continue }  // '#'
            if publicText == nil, line.starts(with: Array("public-key".utf8)) { publicText = value(of: line) }
            if secretText == nil, line.starts(with: Array("secret-key".utf8)) { secretText = value(of: line) }
        }
        guard let publicText else { return .failure(ReadError("has no public-key line")) }
        guard let publicKey = CurveKey(z85: publicText) else {
            return .failure(ReadError("has a public-key that is not 40 characters of Z85"))
        }
        var secretKey: CurveKey?
        if let secretText {
            guard let s = CurveKey(z85: secretText) else { return .failure(ReadError("has a secret-key that is not 40 characters of Z85")) }
            guard (try? s.publicKey()) == publicKey else {
                return .failure(ReadError("has a secret-key that does not belong to its public-key"))
            }
            secretKey = s
        }
        return .success(CurveCertificate(publicKey: publicKey, secretKey: secretKey))
    }

    /// Reads the certificate at `path` (at most `maxFileBytes`).
    public static func read(path: String) -> Result<CurveCertificate, ReadError> {
        switch BoundedFile.read(path: path, limit: maxFileBytes) {
        case .failure(let e): return .failure(ReadError("\(path): \(e)"))
        case .success(let bytes):
            return parse(bytes).mapError { ReadError("\(path) \($0.description)") }
        }
    }

    /// The file's text: pyzmq's layout, with Locus's banner. A secret certificate when
    /// `secretKey` is set.
    public func text(generated: String) -> String {
        var out = ""
        if secretKey != nil {
            out += "#   ****  Generated on \(generated) by locus keygen  ****\n"
            out += "#   ZeroMQ CURVE **Secret** Certificate\n"
            out += "#   DO NOT PROVIDE THIS FILE TO OTHER USERS nor change its permissions.\n\n"
        } else {
            out += "#   ****  Generated on \(generated) by locus keygen  ****\n"
            out += "#   ZeroMQ CURVE Public Certificate\n"
            out += "#   Exchange securely, or use a secure mechanism to verify the contents\n"
            out += "#   of this file after exchange.\n\n"
        }
        out += "metadata\ncurve\n    public-key = \"\(publicKey.z85)\"\n"
        if let secretKey { out += "    secret-key = \"\(secretKey.z85)\"\n" }
        return out
    }

    private static func trim(_ s: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var s = s
        while let c = s.first, c == 0x20 || c == 0x09 || c == 0x0D { s = s.dropFirst() }
        while let c = s.last, c == 0x20 || c == 0x09 || c == 0x0D { s = s.dropLast() }
        return s
    }

    /// What follows the first '=', without surrounding blanks and quotes (as pyzmq strips them).
    private static func value(of line: ArraySlice<UInt8>) -> String? {
        guard let eq = line.firstIndex(of: 0x3D) else { return nil }
        var v = line[(eq + 1)...]
        let strip: Set<UInt8> = [0x20, 0x09, 0x22, 0x27]
        while let c = v.first, strip.contains(c) { v = v.dropFirst() }
        while let c = v.last, strip.contains(c) { v = v.dropLast() }
        return String(decoding: v, as: UTF8.self)
    }
}

/// Reads a small file whole, refusing one larger than a limit (a reader of outside files must
/// never allocate what the file says).
enum BoundedFile {
    static func read(path: String, limit: Int) -> Result<[UInt8], CurveCertificate.ReadError> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(.init(String(cString: strerror(errno)))) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .failure(.init(String(cString: strerror(errno)))) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { return .failure(.init("is not a regular file")) }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(.init(String(cString: strerror(errno))))
            }
            if n == 0 { return .success(out) }
            out += buffer[0..<n]
            if out.count > limit { return .failure(.init("is larger than \(limit) bytes")) }
        }
    }
}

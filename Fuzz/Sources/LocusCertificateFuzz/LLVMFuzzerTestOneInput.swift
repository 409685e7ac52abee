import LocusBus

/// libFuzzer's per-input callback: the input as a CURVE certificate file (`NAME.key`,
/// `NAME.key_secret`, docs/security.md), given to `CurveCertificate.parse` — what the daemon
/// reads from authorized_keys directories and secret key files. Invariants: an accepted secret
/// belongs to its public key, and what Locus writes for an accepted certificate reads back the same.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard case .success(let cert) = CurveCertificate.parse(bytes) else { return 0 }
    if let secret = cert.secretKey {
        precondition((try? secret.publicKey()) == cert.publicKey, "invariant broken: secret key of another public key")
    }
    guard case .success(let again) = CurveCertificate.parse(Array(cert.text(generated: "fuzz").utf8)) else {
        preconditionFailure("invariant broken: a written certificate does not read back")
    }
    precondition(again == cert, "invariant broken: a certificate changed on the way through its file")
    return 0
}

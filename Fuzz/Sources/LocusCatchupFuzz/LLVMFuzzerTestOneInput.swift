import LocusStore

/// libFuzzer's per-input callback: the input as one request frame on the catch-up socket
/// (docs/protocol.md 13.2), given to `CatchupRequest.parse`. Invariants: what it accepts is
/// within the documented bounds (limit 1…10000, at most 1024 topic prefixes), and a cursor it
/// accepted comes back unchanged through `json` (what the next page hands out).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size <= CatchupRequest.maxBytes else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard case .success(let request) = CatchupRequest.parse(bytes) else { return 0 }
    switch request {
    case .snapshot(let topics):
        precondition(topics.count <= 1024, "invariant broken: too many topics accepted")
    case .page(let page):
        precondition((1...CatchupRequest.maxLimit).contains(page.limit), "invariant broken: limit out of range")
        precondition(page.topics.count <= 1024, "invariant broken: too many topics accepted")
        if let cursor = page.cursor {
            precondition(CatchupCursor(json: cursor.json) == cursor, "invariant broken: cursor does not round-trip")
        }
    }
    return 0
}

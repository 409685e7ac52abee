import LocusCore
import LocusFormats

/// libFuzzer's per-input callback: the input as what a gpsd client sends the `gpsd-server`
/// sink, given to `GpsdRequestParser` (max_request_bytes 256 here) whole and in pieces whose
/// size the first byte picks. Invariants: no trap; the requests come out the same however the
/// bytes are split (unless one split ran past the size bound); no more than the bound waits;
/// a watch's device path is bounded; every answer the server would write (ERROR, WATCH) is
/// one JSON object on one CR LF-ended line.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let piece = Int(bytes[0] % 16) + 1
    let input = Array(bytes.dropFirst())

    var whole = GpsdRequestParser(maxRequestBytes: 256)
    let all = whole.feed(input)
    var split = GpsdRequestParser(maxRequestBytes: 256)
    var pieces: [Result<GpsdRequest, GpsdRequestProblem>] = []
    var start = 0
    while start < input.count {
        let end = min(input.count, start + piece)
        pieces += split.feed(input[start..<end])
        start = end
    }
    func tooLong(_ r: [Result<GpsdRequest, GpsdRequestProblem>]) -> Bool {
        r.contains { if case .failure(.tooLong) = $0 { true } else { false } }
    }
    if !tooLong(all) && !tooLong(pieces) {
        precondition(all == pieces, "invariant broken: the requests depend on how the bytes were split")
    }
    var watch = GpsdReportWriter.Watch()
    for result in all + pieces {
        switch result {
        case .success(.watch(let w?)):
            if let d = w.device { precondition(d.utf8.count <= GpsdRequestParser.maxPathBytes, "invariant broken: device path too long") }
            watch = watch.applying(w)
            checkLine(GpsdReportWriter.watch(watch))
        case .success(.device(let d?)):
            if let p = d.path { precondition(p.utf8.count <= GpsdRequestParser.maxPathBytes, "invariant broken: path too long") }
        case .failure(let problem):
            checkLine(GpsdReportWriter.error(problem.message))
        default:
            break
        }
    }
    return 0
}

/// One JSON object, then CR LF, and no other line end.
func checkLine(_ line: [UInt8]) {
    precondition(line.count >= 2 && line[line.count - 2] == 0x0D && line[line.count - 1] == 0x0A, "invariant broken: not CR LF-ended")
    let body = Array(line.dropLast(2))
    precondition(!body.contains(0x0A) && !body.contains(0x0D), "invariant broken: a line end inside a report")
    guard case .object = try? JSONValue.read(body) else { preconditionFailure("invariant broken: a report that is not a JSON object") }
}

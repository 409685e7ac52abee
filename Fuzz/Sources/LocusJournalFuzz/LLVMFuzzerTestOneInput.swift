import LocusCore
import LocusStore

/// libFuzzer's per-input callback: the input as the bytes of a journal segment after its
/// header (docs/protocol.md 13.1), read record by record as `JournalReader` does, and each
/// record's body (and the whole input) given to `EnvelopeOrigin.read`, the catch-up scan's
/// reader of producer and sequence number. Invariants: a record never claims more bytes than
/// the input has, its topic and body lie inside it, and parsing always moves forward.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let input = UnsafeRawBufferPointer(start: data, count: size)
    _ = EnvelopeOrigin.read(input)
    var offset = 0
    while offset < size {
        let rest = UnsafeRawBufferPointer(rebasing: input[offset...])
        switch JournalRecord.parse(rest) {
        case .record(let entry, let recordSize):
            precondition(recordSize >= JournalRecord.headerBytes && recordSize <= rest.count, "invariant broken: record size")
            let end = rest.baseAddress! + recordSize
            precondition(entry.topic.baseAddress! >= rest.baseAddress! && entry.body.baseAddress! + entry.body.count <= end,
                         "invariant broken: topic or body outside the record")
            _ = EnvelopeOrigin.read(entry.body)
            offset += recordSize
        case .incomplete, .damaged:
            return 0
        }
    }
    return 0
}

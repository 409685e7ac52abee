import Foundation
import LocusCore
import LocusStore

/// libFuzzer's per-input callback: the input as the bytes of a journal segment after its
/// header (docs/protocol.md 13.1), read record by record as `JournalReader` does, and each
/// record's body (and the whole input) given to `EnvelopeOrigin.read`, the catch-up scan's
/// reader of producer and sequence number. Invariants: a record never claims more bytes than
/// the input has, its topic and body lie inside it, and parsing always moves forward.
///
/// Then the input is a segment file on disk, read by `JournalReader` (which resynchronises after
/// damage), once as a closed segment and once as the newest: indices come out strictly
/// increasing, no record is larger than the file, and the read ends.
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
            offset = size
        }
    }
    readAsSegments(input)
    return 0
}

/// A journal directory of this process's own, written anew for each input.
private let directory: String = {
    let d = NSTemporaryDirectory() + "locus-journal-fuzz-\(getpid())"
    try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
    return d
}()

private func readAsSegments(_ input: UnsafeRawBufferPointer) {
    let first = directory + "/00000000000000000001.journal"
    let next = directory + "/00000000000000100000.journal"
    var file = JournalRecord.segmentMagic
    file.append(contentsOf: input)
    FileManager.default.createFile(atPath: first, contents: Data(file))
    for closed in [true, false] {
        if closed {
            FileManager.default.createFile(atPath: next, contents: Data(JournalRecord.segmentMagic))
        } else {
            try? FileManager.default.removeItem(atPath: next)
        }
        var last: UInt64 = 0
        let outcome = JournalReader(directory: directory).read(from: .oldest) { entry in
            precondition(entry.index > last, "invariant broken: index \(entry.index) after \(last)")
            last = entry.index
            precondition(entry.topic.count + entry.body.count <= input.count, "invariant broken: a record larger than the file")
            _ = EnvelopeOrigin.read(entry.body)
            return true
        }
        precondition(outcome.damaged >= 0, "invariant broken: damaged count")
    }
}

import Foundation
import LocusCore
@testable import LocusFormats

enum FormatFixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").path

    static func path(_ name: String) -> String {
        // The copied resources when available, else the source tree.
        if let url = Bundle.module.url(forResource: "Fixtures/" + name, withExtension: nil) { return url.path }
        return directory + "/" + name
    }

    static func text(_ name: String) throws -> String { try String(contentsOfFile: path(name), encoding: .utf8) }

    static func decode(_ name: String, format: RecordingFormat? = nil, options: DecodeOptions = .init()) throws
        -> (observations: [RecordedObservation], decoder: RecordingDecoder) {
        try RecordingDecoder.observations(path: path(name), format: format, options: options)
    }

    static func decode(bytes: [UInt8], format: RecordingFormat? = nil, options: DecodeOptions = .init()) throws
        -> (observations: [RecordedObservation], decoder: RecordingDecoder) {
        var d = RecordingDecoder(options: options)
        var out: [RecordedObservation] = []
        try d.decode(ByteInput(bytes: bytes), format: format) { out.append($0) }
        return (out, d)
    }

    static func temporaryFile(_ contents: String, suffix: String) -> String {
        let p = NSTemporaryDirectory() + "locus-fmt-\(UUID().uuidString.prefix(8))" + suffix
        _ = FileManager.default.createFile(atPath: p, contents: Data(contents.utf8))
        return p
    }
}

/// The time of day of an event time, in milliseconds.
func timeOfDay(_ t: EventTime) -> Int64 { ((t.milliseconds % 86_400_000) + 86_400_000) % 86_400_000 }

func near(_ a: Double?, _ b: Double?, _ tolerance: Double) -> Bool {
    switch (a, b) {
    case (nil, nil): return true
    case let (x?, y?): return abs(x - y) <= tolerance
    default: return false
    }
}

/// gpsd JSON lines decoded with Foundation's JSONSerialization: an independent reading.
func foundationObjects(_ text: String) throws -> [[String: Any]] {
    try text.split(whereSeparator: \.isNewline).map { line in
        try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
    }
}

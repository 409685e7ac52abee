import Foundation
import LocusCore
import LocusPlugins
import Testing

/// Each event type's decoder and encoder agree on everything Locus really writes: every line of
/// the golden cases (inputs made by Locus's decoders, outputs made by its services) decodes as
/// its registered type (not as an unknown raw payload) and encodes back to the same bytes.
/// With tools/test_payload_declarations.py (schemas, doc tables and these files agree) this is
/// the check that the four places an event type is written down say the same thing.
@Suite struct PayloadRoundTripTests {
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Golden")

    @Test func everyGoldenLineDecodesAsItsTypeAndEncodesBackToTheSameBytes() throws {
        let registry = BuiltinPlugins.payloadRegistry
        var checked: [String: Int] = [:]
        for case let file as URL in FileManager.default.enumerator(at: Self.golden, includingPropertiesForKeys: nil)!
        where file.pathExtension == "jsonl" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n").enumerated() {
                let (_, body) = try RecordingLine.split(Array(line.utf8))
                let envelope = try EnvelopeCodec.decode(body, registry: registry)
                guard case .typed = envelope.payload else {
                    Issue.record("\(file.lastPathComponent):\(number + 1): \(envelope.type) decoded as an unknown payload")
                    continue
                }
                let again = EnvelopeCodec.encode(envelope)
                #expect(again == body, "\(file.deletingLastPathComponent().lastPathComponent)/\(file.lastPathComponent):\(number + 1): \(String(decoding: again, as: UTF8.self)) ≠ \(String(decoding: body, as: UTF8.self))")
                checked[envelope.type, default: 0] += 1
            }
        }
        #expect(checked.count >= 15, "\(checked)")
    }
}

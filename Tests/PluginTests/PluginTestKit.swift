import Foundation
import LocusCore
import Logging

@_exported import LocusTestKit

extension PluginHarness {
    /// Everything published so far, decoded.
    func published(registry: PayloadRegistry = .core) throws -> [BusMessage] { try messages() }
}

func fixMessage(source: String = "gps0", speed: Double?, at seconds: Double, seq: UInt64 = 1) -> BusMessage {
    let fix = Fix(source: source, mode: .threeD, latitude: 45.7, longitude: 14.36, speed: speed, horizontalAccuracy: 5)
    let time = EventTime(milliseconds: 1_700_000_000_000 + Int64(seconds * 1000))
    return BusMessage(topic: "obs.fix.\(source)", envelope: Envelope(producer: source, seq: seq, time: time, payload: fix))
}

func temporaryPath(_ name: String) -> String {
    let dir = NSTemporaryDirectory() + "locus-tests-\(UUID().uuidString)"
    try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir + "/" + name
}

import Foundation
import LocusCore
import LocusFormats
import LocusMQTTPlugin

/// libFuzzer's per-input callback: the input as an MQTT message payload, as the `mqtt` source
/// reads it (`IncomingLocation.read`, OwnTracks and Locus formats), and as an envelope the `mqtt`
/// sink turns into OwnTracks (`OwnTracksFormat.convert`). Invariants: an accepted position is in
/// range; a converted message is JSON with `acc` ≥ 1 (a waypoint: a circle in range, `rad` ≥ 1),
/// and a converted location reads back as the same position.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    for format in MQTTSourceConfiguration.Format.allCases {
        if case .success(let l) = IncomingLocation.read(bytes, format: format) {
            precondition((-90...90).contains(l.latitude) && (-180...180).contains(l.longitude), "invariant broken: position out of range")
            precondition(l.horizontalAccuracy.map { $0 >= 0 } ?? true, "invariant broken: negative accuracy")
            _ = l.fix(source: "fuzz")
        }
    }
    var format = OwnTracksFormat(trackerId: "fz", unknownAccuracy: 100)
    guard let message = format.convert(topic: "t", body: bytes) else { return 0 }
    guard let json = try? JSONValue.decode(message.json) else { preconditionFailure("invariant broken: converted message is not JSON") }
    if json["_type"]?.stringValue == "waypoint" {
        // A region definition: a circle in range with a radius of at least a metre, no acc.
        guard let lat = json["lat"]?.doubleValue, let lon = json["lon"]?.doubleValue, (-90...90).contains(lat),
              (-180...180).contains(lon), let rad = json["rad"]?.doubleValue, rad >= 1, json["desc"]?.stringValue != nil else {
            preconditionFailure("invariant broken: a waypoint without a valid circle: \(String(decoding: message.json, as: UTF8.self))")
        }
        return 0
    }
    guard let acc = json["acc"]?.doubleValue, acc >= 1 else { preconditionFailure("invariant broken: acc missing or below 1") }
    if json["_type"]?.stringValue == "location" {
        let back = message.json.withUnsafeBytes { IncomingLocation.read($0, format: .owntracks) }
        guard case .success(let l) = back, let lat = json["lat"]?.doubleValue, abs(l.latitude - lat) < 1e-9 else {
            preconditionFailure("invariant broken: a converted location does not read back: \(String(decoding: message.json, as: UTF8.self))")
        }
    }
    return 0
}

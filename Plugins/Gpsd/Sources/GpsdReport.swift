import LocusCore
import LocusFormats

/// One line of gpsd output, decoded as far as the source needs it: the location data
/// (`GpsdDataReport`, shared with `locus decode`) and the protocol classes of a connection.
public enum GpsdReport: Sendable, Equatable {
    case version(release: String?, protoMajor: Int?, protoMinor: Int?)
    /// The device paths gpsd knows.
    case devices([String])
    /// A device was activated (`activated` present and not 0) or removed.
    case device(path: String?, activated: Bool)
    case watch
    case error(String)
    /// TPV, SKY, GST, or a class Locus does not use (`PPS`, `TOFF`, `ATT`, `AIS`, `OSC`, …).
    case data(GpsdDataReport)
}

extension GpsdReport {
    /// Decodes one JSON line from gpsd. Throws for anything that is not a JSON object with a `class`.
    public static func parse(_ line: [UInt8]) throws -> GpsdReport {
        try line.withUnsafeBufferPointer { try parse($0) }
    }

    public static func parse(_ line: String) throws -> GpsdReport { try parse(Array(line.utf8)) }

    /// Decodes one JSON line (without its newline) in one pass: the members of the protocol
    /// classes are read alongside the data fields, and the class decides which apply.
    public static func parse(_ buf: UnsafeBufferPointer<UInt8>) throws -> GpsdReport {
        var release: String?, protoMajor: Int?, protoMinor: Int?
        var devices: [String] = []
        var path: String?
        var activated = false
        var message: String?
        let data = try GpsdDataReport.parse(buf) { r, k in
            if k == "release" { release = try r.readOptionalString() }
            else if k == "proto_major" { protoMajor = try r.readOptionalInt() }
            else if k == "proto_minor" { protoMinor = try r.readOptionalInt() }
            else if k == "devices" {
                if !r.readNull() {
                    try r.readArray { r in
                        var p: String?
                        try r.readObject { r, k in
                            if k == "path" { p = try r.readOptionalString() } else { try r.skipValue() }
                        }
                        if let p { devices.append(p) }
                    }
                }
            }
            else if k == "path" { path = try r.readOptionalString() }
            else if k == "activated" {
                // A timestamp (string; a number in old gpsd) when active, 0 when the device is gone.
                switch try r.nextKind() {
                case .string: activated = !(try r.readString()).isEmpty
                case .number: activated = try r.readDouble() != 0
                default: try r.skipValue()
                }
            }
            else if k == "message" { message = try r.readOptionalString() }
            else { try r.skipValue() }
        }
        guard case .other(let cls) = data else { return .data(data) }
        switch cls {
        case "VERSION": return .version(release: release, protoMajor: protoMajor, protoMinor: protoMinor)
        case "DEVICES": return .devices(devices)
        case "DEVICE": return .device(path: path, activated: activated)
        case "WATCH": return .watch
        case "ERROR": return .error(message ?? "")
        default: return .data(data)
        }
    }
}

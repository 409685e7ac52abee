import LocusCore

/// `device=` of a control command to a condition service (`region`, `beacon`).
public enum DeviceArgument {
    /// Takes `device` out of `args`. Per device it names the device (required when `required`,
    /// else "" when absent); a service watching one device refuses it. `kind` is the command's
    /// first word (`region`), for the hint to `locus ctl <kind> devices`.
    public static func take(_ args: inout [String: JSONValue], perDevice: Bool, required: Bool, service: String,
                            kind: String) throws -> String {
        let raw = args.removeValue(forKey: "device")
        guard perDevice else {
            if raw != nil { throw ServiceCommandError("device= is for a service with per_device: true; '\(service)' watches one device") }
            return ""
        }
        guard let raw else {
            if required { throw ServiceCommandError("'\(service)' keeps one state per device: give device=… (see locus ctl \(kind) devices)") }
            return ""
        }
        guard let device = raw.stringValue, !device.isEmpty else { throw ServiceCommandError("device must be a device id") }
        return device
    }
}

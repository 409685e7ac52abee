import LocusCore

/// The replies the control server makes on its own, when a request never reaches the handler
/// or the handler does not answer: `{"ok":false,"error":"…"}`.
public enum ControlReply {
    /// `{"ok":false,"error":message}` as one frame of JSON.
    public static func error(_ message: String) -> [UInt8] {
        var w = JSONWriter(capacity: message.utf8.count + 32)
        w.beginObject()
        w.key("ok"); w.bool(false)
        w.key("error"); w.string(message)
        w.endObject()
        return w.bytes
    }

    /// True if `bytes` are UTF-8 text holding exactly one JSON value.
    public static func isJSONText(_ bytes: [UInt8]) -> Bool {
        guard Array(String(decoding: bytes, as: UTF8.self).utf8) == bytes else { return false }
        return (try? JSONReader.read(bytes) { try $0.skipValue() }) != nil
    }
}

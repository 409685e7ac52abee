/// The envelope's `via` member (docs/protocol.md 4.1): the CURVE key name of the outside
/// publisher a message came from. Only the hub writes it, so a subscriber can trust it: the hub
/// adds it to what arrives over CURVE and refuses outside messages that already carry one.
public enum EnvelopeVia {
    /// True if `body`'s top-level object has a `via` member, however its key is escaped; also
    /// true if `body` is not an object that can be walked (the hub then refuses it rather than
    /// guess). Values are skipped by their structure, not read: a number such as `1e999`, which
    /// the hub forwards and Locus's own decoder refuses, must not hide a `via` after it from
    /// subscribers whose parsers read it.
    public static func isPresent(in body: UnsafeRawBufferPointer) -> Bool {
        var i = skipSpace(body, 0)
        guard i < body.count, body[i] == 0x7B else { return true }
        i = skipSpace(body, i + 1)
        if i < body.count, body[i] == 0x7D { return false }
        while true {
            guard i < body.count, body[i] == 0x22, let keyEnd = endOfString(body, i) else { return true }
            if isVia(UnsafeRawBufferPointer(rebasing: body[i..<keyEnd])) { return true }
            i = skipSpace(body, keyEnd)
            guard i < body.count, body[i] == 0x3A, let valueEnd = endOfValue(body, skipSpace(body, i + 1)) else { return true }
            i = skipSpace(body, valueEnd)
            guard i < body.count else { return true }
            if body[i] == 0x7D { return false }
            guard body[i] == 0x2C else { return true }
            i = skipSpace(body, i + 1)
        }
    }

    /// A quoted key (with its quotes) that reads as `via`.
    private static func isVia(_ quoted: UnsafeRawBufferPointer) -> Bool {
        guard quoted.contains(0x5C) else { return quoted.elementsEqual("\"via\"".utf8) }
        var reader = JSONReader(quoted.bindMemory(to: UInt8.self))
        return (try? reader.readString()) == "via"
    }

    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }

    private static func skipSpace(_ b: UnsafeRawBufferPointer, _ from: Int) -> Int {
        var i = from
        while i < b.count, isSpace(b[i]) { i += 1 }
        return i
    }

    /// The index after the closing quote of the string starting at `start`; nil if unclosed.
    private static func endOfString(_ b: UnsafeRawBufferPointer, _ start: Int) -> Int? {
        var i = start + 1
        while i < b.count {
            switch b[i] {
            case 0x22: return i + 1
            case 0x5C: i += 2
            default: i += 1
            }
        }
        return nil
    }

    /// The index after the value starting at `start`, found by its brackets and quotes alone;
    /// nil if it does not end.
    private static func endOfValue(_ b: UnsafeRawBufferPointer, _ start: Int) -> Int? {
        guard start < b.count else { return nil }
        switch b[start] {
        case 0x22:
            return endOfString(b, start)
        case 0x7B, 0x5B:
            var depth = 0
            var i = start
            while i < b.count {
                switch b[i] {
                case 0x22:
                    guard let end = endOfString(b, i) else { return nil }
                    i = end
                    continue
                case 0x7B, 0x5B: depth += 1
                case 0x7D, 0x5D:
                    depth -= 1
                    if depth == 0 { return i + 1 }
                default: break
                }
                i += 1
            }
            return nil
        default:
            var i = start
            while i < b.count, b[i] != 0x2C, b[i] != 0x7D, b[i] != 0x5D, !isSpace(b[i]) { i += 1 }
            return i > start ? i : nil
        }
    }

    /// `body`, an envelope object, with `"via":<name>` added as its last member. nil if the
    /// body does not end in `}` (after optional white space).
    public static func adding(_ name: String, to body: UnsafeRawBufferPointer) -> [UInt8]? {
        var end = body.count
        while end > 0, body[end - 1] == 0x20 || body[end - 1] == 0x0A || body[end - 1] == 0x0D || body[end - 1] == 0x09 { end -= 1 }
        guard end > 0, body[end - 1] == 0x7D else { return nil }
        var quoted = JSONWriter()
        quoted.string(name)
        var out: [UInt8] = []
        out.reserveCapacity(end + quoted.bytes.count + 8)
        out.append(contentsOf: body[0..<(end - 1)])
        // An empty object gets no comma.
        var k = end - 2
        while k >= 0, body[k] == 0x20 || body[k] == 0x0A || body[k] == 0x0D || body[k] == 0x09 { k -= 1 }
        if k >= 0, body[k] != 0x7B { out.append(0x2C) }
        out.append(contentsOf: Array("\"via\":".utf8))
        out.append(contentsOf: quoted.bytes)
        out.append(0x7D)
        return out
    }
}

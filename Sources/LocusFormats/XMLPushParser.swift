/// What an `XMLPushParser` reports. Names are as written (with any namespace prefix).
protocol XMLContentHandler {
    /// Whether character data is wanted now; text is decoded and handed over only when it is.
    var wantsText: Bool { get }
    mutating func startElement(_ name: String, attributes: [(name: String, value: String)]) throws
    mutating func endElement(_ name: String) throws
    mutating func text(_ text: String) throws
}

/// An XML parse error: what is wrong, at which line (1-based).
struct XMLSyntaxError: Error, Equatable, CustomStringConvertible {
    var line: Int
    var reason: String
    var description: String { "line \(line): \(reason)" }
}

/// A small streaming XML parser for the documents Locus reads (GPX): elements, attributes,
/// character data, CDATA, comments, processing instructions and a skipped DOCTYPE; the five
/// predefined entities and character references. No DTD, no external or custom entities.
///
/// Why not Foundation's `XMLParser`: on Linux it traps on some malformed input (an element name
/// with invalid UTF-8 killed the whole daemon with SIGILL), and a reader of outside files must
/// turn every failure into an error. Here every failure is an `XMLSyntaxError`, and memory is
/// bounded whatever the input: names, tags and kept text have limits, comments and ignored text
/// are not stored, and nesting is limited.
///
/// Character data the handler does not want (outside GPX points) is skipped unread: it is not
/// checked for UTF-8 or entity references, only for markup.
///
/// Feed chunks of any size with `feed`, then call `finish`.
struct XMLPushParser {
    /// Longest start or end tag (name and attributes), bytes.
    static let maxTagBytes = 1 << 16
    /// Longest run of character data kept for the handler, bytes; longer is an error.
    static let maxTextBytes = 1 << 16
    static let maxDepth = 256

    private enum State {
        case text
        /// After `<`, kind not known yet (the bytes so far are in `tag`).
        case markupStart
        case element(quote: UInt8?)
        /// `<!-- … -->`: how many `-` just came.
        case comment(dashes: Int)
        /// `<![CDATA[ … ]]>`: how many `]` just came.
        case cdata(brackets: Int)
        /// `<? … ?>`: whether the last byte was `?`.
        case instruction(question: Bool)
        /// `<!DOCTYPE …>` and other declarations: quote and `[ ]` nesting.
        case declaration(quote: UInt8?, depth: Int)
    }

    private var state = State.text
    private var tag: [UInt8] = []
    private var textBytes: [UInt8] = []
    private var textOverflow = false
    private var open: [String] = []
    private var sawRoot = false
    private var rootClosed = false
    private(set) var line = 1

    var depth: Int { open.count }
    var openElement: String? { open.last }

    func error(_ reason: String) -> XMLSyntaxError { XMLSyntaxError(line: line, reason: reason) }

    mutating func feed<H: XMLContentHandler>(_ bytes: UnsafeRawBufferPointer, into handler: inout H) throws {
        for b in bytes {
            if b == 0x0A { line += 1 }
            switch state {
            case .text:
                if b == 0x3C {  // <
                    try flushText(into: &handler)
                    tag.removeAll(keepingCapacity: true)
                    state = .markupStart
                } else if handler.wantsText {
                    if textBytes.count < Self.maxTextBytes { textBytes.append(b) } else { textOverflow = true }
                }
            case .markupStart:
                tag.append(b)
                try classifyMarkup(into: &handler)
            case .element(let quote):
                if let quote {
                    if b == quote { state = .element(quote: nil) }
                } else if b == 0x22 || b == 0x27 {
                    state = .element(quote: b)
                } else if b == 0x3E {  // >
                    try endTag(into: &handler)
                    state = .text
                    continue
                }
                guard tag.count < Self.maxTagBytes else { throw error("a tag longer than \(Self.maxTagBytes) bytes") }
                tag.append(b)
            case .comment(let dashes):
                if b == 0x3E && dashes >= 2 { state = .text } else { state = .comment(dashes: b == 0x2D ? dashes + 1 : 0) }
            case .cdata(let brackets):
                if b == 0x3E && brackets >= 2 {
                    // The `]]` were kept as text; take them back.
                    if handler.wantsText, textBytes.count >= 2, !textOverflow { textBytes.removeLast(2) }
                    state = .text
                } else {
                    if handler.wantsText {
                        if textBytes.count < Self.maxTextBytes { textBytes.append(b) } else { textOverflow = true }
                    }
                    state = .cdata(brackets: b == 0x5D ? brackets + 1 : 0)
                }
            case .instruction(let question):
                if b == 0x3E && question { state = .text } else { state = .instruction(question: b == 0x3F) }
            case .declaration(let quote, let depth):
                if let quote {
                    if b == quote { state = .declaration(quote: nil, depth: depth) }
                } else if b == 0x22 || b == 0x27 {
                    state = .declaration(quote: b, depth: depth)
                } else if b == 0x5B {
                    state = .declaration(quote: nil, depth: depth + 1)
                } else if b == 0x5D {
                    state = .declaration(quote: nil, depth: max(0, depth - 1))
                } else if b == 0x3E && depth == 0 {
                    state = .text
                }
            }
        }
    }

    /// Decides what follows `<` once enough bytes are there.
    private mutating func classifyMarkup<H: XMLContentHandler>(into handler: inout H) throws {
        let first = tag[0]
        if first == 0x3F {  // ?
            state = .instruction(question: false)
            return
        }
        guard first == 0x21 else {  // not !
            if first == 0x3E { throw error("empty tag '<>'") }
            if first == 0x22 || first == 0x27 { throw error("a quote where a tag name should be") }
            state = .element(quote: nil)
            return
        }
        let comment: [UInt8] = Array("!--".utf8), cdata: [UInt8] = Array("![CDATA[".utf8)
        if tag.count <= comment.count, Array(comment.prefix(tag.count)) == tag {
            if tag.count == comment.count { state = .comment(dashes: 0) }
            return
        }
        if tag.count <= cdata.count, Array(cdata.prefix(tag.count)) == tag {
            if tag.count == cdata.count { state = .cdata(brackets: 0) }
            return
        }
        // A declaration (`<!DOCTYPE …>`): skipped. Re-read what came so far for quotes/brackets.
        var quote: UInt8?
        var depth = 0
        for b in tag.dropFirst() {
            if let q = quote { if b == q { quote = nil } } else if b == 0x22 || b == 0x27 { quote = b } else if b == 0x5B { depth += 1 } else if b == 0x5D { depth = max(0, depth - 1) }
        }
        if tag.last == 0x3E && quote == nil && depth == 0 { state = .text } else { state = .declaration(quote: quote, depth: depth) }
    }

    /// A complete `<…>` element tag is in `tag` (without `<` and `>`).
    private mutating func endTag<H: XMLContentHandler>(into handler: inout H) throws {
        guard !tag.isEmpty else { throw error("empty tag '<>'") }
        if tag[0] == 0x2F {  // </name>
            let name = try Self.name(tag[1...].prefix { !Self.isSpace($0) }, line: line)
            guard tag[1...].drop(while: { !Self.isSpace($0) }).allSatisfy(Self.isSpace) else { throw error("junk in end tag </\(name)>") }
            guard let top = open.last else { throw error("end tag </\(name)> with no element open") }
            guard top == name else { throw error("end tag </\(name)> does not match <\(top)>") }
            open.removeLast()
            if open.isEmpty { rootClosed = true }
            try handler.endElement(name)
            return
        }
        var bytes = tag[...]
        let selfClosing = bytes.last == 0x2F
        if selfClosing { bytes = bytes.dropLast() }
        let nameBytes = bytes.prefix { !Self.isSpace($0) }
        let name = try Self.name(nameBytes, line: line)
        var rest = bytes.dropFirst(nameBytes.count)
        var attributes: [(name: String, value: String)] = []
        while true {
            rest = rest.drop(while: Self.isSpace)
            if rest.isEmpty { break }
            guard attributes.count < 256 else { throw error("more than 256 attributes in <\(name)>") }
            let attrName = rest.prefix { !Self.isSpace($0) && $0 != 0x3D }
            let aName = try Self.name(attrName, line: line)
            rest = rest.dropFirst(attrName.count).drop(while: Self.isSpace)
            guard rest.first == 0x3D else { throw error("attribute '\(aName)' of <\(name)> has no value") }
            rest = rest.dropFirst().drop(while: Self.isSpace)
            guard let q = rest.first, q == 0x22 || q == 0x27 else { throw error("attribute '\(aName)' of <\(name)> is not quoted") }
            rest = rest.dropFirst()
            guard let close = rest.firstIndex(of: q) else { throw error("unterminated attribute '\(aName)' in <\(name)>") }
            let raw = rest[..<close]
            if raw.contains(0x3C) { throw error("'<' in attribute '\(aName)' of <\(name)>") }
            attributes.append((aName, try decode(raw)))
            rest = rest[rest.index(after: close)...]
            if let next = rest.first, !Self.isSpace(next) { throw error("no space between attributes in <\(name)>") }
        }
        if open.isEmpty {
            if rootClosed || sawRoot { throw error("a second root element <\(name)>") }
            sawRoot = true
        }
        guard open.count < Self.maxDepth else { throw error("elements nested more than \(Self.maxDepth) deep") }
        open.append(name)
        try handler.startElement(name, attributes: attributes)
        if selfClosing {
            open.removeLast()
            if open.isEmpty { rootClosed = true }
            try handler.endElement(name)
        }
    }

    private mutating func flushText<H: XMLContentHandler>(into handler: inout H) throws {
        guard !textBytes.isEmpty || textOverflow else { return }
        defer {
            textBytes.removeAll(keepingCapacity: true)
            textOverflow = false
        }
        if textOverflow { throw error("character data longer than \(Self.maxTextBytes) bytes") }
        try handler.text(try decode(textBytes[...]))
    }

    /// Checks the end of input: the root element closed, nothing left open.
    func finish() throws {
        switch state {
        case .text: break
        default: throw error("unexpected end of file inside markup")
        }
        if let top = open.last { throw error("unexpected end of file inside <\(top)>") }
        if !sawRoot { throw error("no element") }
    }

    static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }

    /// A name as UTF-8 text: not empty, no markup characters.
    static func name(_ bytes: ArraySlice<UInt8>, line: Int) throws -> String {
        guard !bytes.isEmpty else { throw XMLSyntaxError(line: line, reason: "a tag or attribute without a name") }
        guard bytes.count <= 256 else { throw XMLSyntaxError(line: line, reason: "a name longer than 256 bytes") }
        for b in bytes {
            // Bytes that cannot be in a name (XML 1.0 §2.3); non-ASCII is checked as UTF-8 below.
            if b < 0x80 && !(b >= 0x61 && b <= 0x7A || b >= 0x41 && b <= 0x5A || b >= 0x30 && b <= 0x39
                             || b == 0x5F || b == 0x3A || b == 0x2D || b == 0x2E) {
                throw XMLSyntaxError(line: line, reason: "character 0x\(String(b, radix: 16)) in a name")
            }
        }
        if let f = bytes.first, f == 0x2D || f == 0x2E || (f >= 0x30 && f <= 0x39) {
            throw XMLSyntaxError(line: line, reason: "a name starting with '\(Character(Unicode.Scalar(f)))'")
        }
        guard let s = String(validating: bytes, as: UTF8.self) else {
            throw XMLSyntaxError(line: line, reason: "a name that is not valid UTF-8")
        }
        return s
    }

    /// Character data or an attribute value with its entity and character references replaced.
    func decode(_ bytes: ArraySlice<UInt8>) throws -> String {
        guard bytes.contains(0x26) else {  // no &
            guard let s = String(validating: bytes, as: UTF8.self) else { throw error("text that is not valid UTF-8") }
            return s
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let b = bytes[i]
            guard b == 0x26 else { out.append(b); i += 1; continue }
            guard let semi = bytes[i...].prefix(12).firstIndex(of: 0x3B) else { throw error("'&' that starts no entity reference") }
            let ref = bytes[(i + 1)..<semi]
            switch Array(ref) {
            case Array("lt".utf8): out.append(0x3C)
            case Array("gt".utf8): out.append(0x3E)
            case Array("amp".utf8): out.append(0x26)
            case Array("quot".utf8): out.append(0x22)
            case Array("apos".utf8): out.append(0x27)
            default:
                guard ref.first == 0x23 else { throw error("unknown entity '&\(String(decoding: ref, as: UTF8.self));'") }
                let hex = ref.dropFirst().first == 0x78
                let digits = String(decoding: ref.dropFirst(hex ? 2 : 1), as: UTF8.self)
                guard !digits.isEmpty, let v = UInt32(digits, radix: hex ? 16 : 10), v != 0,
                      let scalar = Unicode.Scalar(v) else { throw error("bad character reference '&\(String(decoding: ref, as: UTF8.self));'") }
                out.append(contentsOf: Array(String(Character(scalar)).utf8))
            }
            i = semi + 1
        }
        guard let s = String(validating: out, as: UTF8.self) else { throw error("text that is not valid UTF-8") }
        return s
    }
}

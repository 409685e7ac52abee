/// A schema's `pattern`, compiled to a small automaton and run without backtracking (time linear
/// in the string, no recursion): outside publishers choose the strings it reads. Swift's `Regex`
/// is neither `Sendable` nor bounded in time.
///
/// The subset Locus's schemas use: `^` and `$`, literal ASCII characters and escapes (`\.`,
/// `\\`, `\-`, `\d`), classes of ASCII characters and ranges (`[a-z0-9_-]`, `[ -~]`), groups
/// with alternatives (`(a|b)`), and the quantifiers `?`, `*`, `+`, `{n}`, `{n,}`, `{n,m}`
/// (m ≤ 1,000). Anything else fails to compile (`PayloadSchemaError`). As in JSON Schema, a
/// pattern matches anywhere unless anchored. Characters beyond ASCII match no class.
public struct PayloadPattern: Sendable {
    public let text: String
    private let program: [Instruction]

    enum Instruction: Sendable {
        /// One byte in the set (256 bits), then the next instruction.
        case byte(ByteSet)
        case split(Int, Int)
        case jump(Int)
        case start
        case end
        case match
    }

    struct ByteSet: Sendable {
        var bits: (UInt64, UInt64) = (0, 0) // ASCII only: bytes ≥ 0x80 are never in a set
        mutating func insert(_ b: UInt8) {
            if b < 64 { bits.0 |= 1 << UInt64(b) } else if b < 128 { bits.1 |= 1 << UInt64(b - 64) }
        }
        func contains(_ b: UInt8) -> Bool {
            b < 64 ? bits.0 & (1 << UInt64(b)) != 0 : b < 128 ? bits.1 & (1 << UInt64(b - 64)) != 0 : false
        }
    }

    indirect enum Node {
        case set(ByteSet)
        case start, end
        case sequence([Node])
        case alternatives([Node])
        case repeated(Node, min: Int, max: Int?)
    }

    public init(_ text: String) throws(PayloadSchemaError) {
        self.text = text
        var parser = Parser(bytes: Array(text.utf8), text: text)
        let node = try parser.alternatives()
        guard parser.i == parser.bytes.count else { throw parser.fail("unexpected ')'") }
        var code: [Instruction] = []
        Self.emit(node, into: &code)
        code.append(.match)
        guard code.count <= 100_000 else { throw PayloadSchemaError("pattern \(text) is too large") }
        program = code
    }

    /// Whether the pattern matches somewhere in `s` (anchors decide where).
    public func matches(_ s: String) -> Bool {
        var s = s
        return s.withUTF8 { run($0) }
    }

    private func run(_ input: UnsafeBufferPointer<UInt8>) -> Bool {
        var current: [Int] = [], next: [Int] = []
        var seen = [Int](repeating: -1, count: program.count)
        var stack: [Int] = []
        // Follows jumps, splits and anchors from `pc` at position `at`, adding the byte and
        // match instructions reached to `list`; true if a match was reached.
        func add(_ pc: Int, at: Int, to list: inout [Int]) -> Bool {
            stack.append(pc)
            while let p = stack.popLast() {
                guard seen[p] != at else { continue }
                seen[p] = at
                switch program[p] {
                case .jump(let t): stack.append(t)
                case .split(let a, let b): stack.append(b); stack.append(a)
                case .start: if at == 0 { stack.append(p + 1) }
                case .end: if at == input.count { stack.append(p + 1) }
                case .match: return true
                case .byte: list.append(p)
                }
            }
            return false
        }
        for position in 0...input.count {
            // Unanchored: a new attempt may start at every position.
            if add(0, at: position, to: &current) { return true }
            guard position < input.count else { break }
            let b = input[position]
            next.removeAll(keepingCapacity: true)
            for pc in current {
                if case .byte(let set) = program[pc], set.contains(b), add(pc + 1, at: position + 1, to: &next) { return true }
            }
            swap(&current, &next)
            // Positions are only ever increasing, so `seen` marks of the last one stay valid.
        }
        return false
    }

    private static func emit(_ node: Node, into code: inout [Instruction]) {
        switch node {
        case .set(let s): code.append(.byte(s))
        case .start: code.append(.start)
        case .end: code.append(.end)
        case .sequence(let parts): for p in parts { emit(p, into: &code) }
        case .alternatives(let options):
            // split L1, next; L1: a; jump end; next: split L2, …
            var jumps: [Int] = []
            for (k, option) in options.enumerated() {
                if k < options.count - 1 {
                    let split = code.count
                    code.append(.split(0, 0))
                    emit(option, into: &code)
                    jumps.append(code.count)
                    code.append(.jump(0))
                    code[split] = .split(split + 1, code.count)
                } else {
                    emit(option, into: &code)
                }
            }
            for j in jumps { code[j] = .jump(code.count) }
        case .repeated(let inner, let min, let max):
            for _ in 0..<min { emit(inner, into: &code) }
            if let max {
                // Each optional copy: split into it or past all of them.
                var splits: [Int] = []
                for _ in min..<max {
                    splits.append(code.count)
                    code.append(.split(0, 0))
                    emit(inner, into: &code)
                }
                for s in splits { code[s] = .split(s + 1, code.count) }
            } else {
                let loop = code.count
                code.append(.split(0, 0))
                emit(inner, into: &code)
                code.append(.jump(loop))
                code[loop] = .split(loop + 1, code.count)
            }
        }
    }

    private struct Parser {
        let bytes: [UInt8]
        let text: String
        var i = 0

        func fail(_ why: String) -> PayloadSchemaError {
            PayloadSchemaError("pattern \(text): \(why) at \(i) (Locus implements ^ $ [classes] (groups|alternatives) escapes and quantifiers)")
        }

        mutating func alternatives() throws(PayloadSchemaError) -> Node {
            var options = [try sequence()]
            while i < bytes.count, bytes[i] == UInt8(ascii: "|") {
                i += 1
                options.append(try sequence())
            }
            return options.count == 1 ? options[0] : .alternatives(options)
        }

        mutating func sequence() throws(PayloadSchemaError) -> Node {
            var parts: [Node] = []
            while i < bytes.count, bytes[i] != UInt8(ascii: "|"), bytes[i] != UInt8(ascii: ")") {
                var atom = try self.atom()
                atom = try quantified(atom)
                parts.append(atom)
            }
            return .sequence(parts)
        }

        mutating func atom() throws(PayloadSchemaError) -> Node {
            let c = bytes[i]
            i += 1
            switch c {
            case UInt8(ascii: "^"): return .start
            case UInt8(ascii: "$"): return .end
            case UInt8(ascii: "("):
                let inner = try alternatives()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ")") else { throw fail("unclosed group") }
                i += 1
                return inner
            case UInt8(ascii: "["): return .set(try classSet())
            case UInt8(ascii: "\\"): return .set(try escape())
            case UInt8(ascii: "."), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "?"), UInt8(ascii: "{"):
                i -= 1
                throw fail("'\(Character(Unicode.Scalar(c)))' here is not implemented")
            default:
                guard c < 0x80 else { i -= 1; throw fail("a character beyond ASCII") }
                var s = ByteSet()
                s.insert(c)
                return .set(s)
            }
        }

        mutating func escape() throws(PayloadSchemaError) -> ByteSet {
            guard i < bytes.count else { throw fail("a pattern ends in \\") }
            let c = bytes[i]
            i += 1
            var s = ByteSet()
            if c == UInt8(ascii: "d") {
                for b in UInt8(ascii: "0")...UInt8(ascii: "9") { s.insert(b) }
                return s
            }
            let isLetterOrDigit = (c >= 0x30 && c <= 0x39) || (c | 0x20 >= 0x61 && c | 0x20 <= 0x7A)
            guard c < 0x80, !isLetterOrDigit else { i -= 1; throw fail("escape \\\(Character(Unicode.Scalar(c))) is not implemented") }
            s.insert(c)
            return s
        }

        mutating func classSet() throws(PayloadSchemaError) -> ByteSet {
            var s = ByteSet()
            guard i < bytes.count, bytes[i] != UInt8(ascii: "^") else { throw fail("negated classes are not implemented") }
            var first = true
            while true {
                guard i < bytes.count else { throw fail("unclosed [") }
                var c = bytes[i]
                if c == UInt8(ascii: "]"), !first { i += 1; return s }
                first = false
                i += 1
                var one = ByteSet()
                if c == UInt8(ascii: "\\") {
                    one = try escape()
                    for b in UInt8(0)..<128 where one.contains(b) { s.insert(b) }
                    continue
                }
                guard c < 0x80 else { i -= 1; throw fail("a character beyond ASCII") }
                // A range a-z (a '-' first or last is itself).
                if i + 1 < bytes.count, bytes[i] == UInt8(ascii: "-"), bytes[i + 1] != UInt8(ascii: "]") {
                    var hi = bytes[i + 1]
                    i += 2
                    if hi == UInt8(ascii: "\\") {
                        guard i < bytes.count else { throw fail("unclosed [") }
                        hi = bytes[i]
                        i += 1
                    }
                    guard hi < 0x80, hi >= c else { throw fail("bad range") }
                    while true { s.insert(c); if c == hi { break }; c += 1 }
                } else {
                    s.insert(c)
                }
            }
        }

        mutating func quantified(_ atom: Node) throws(PayloadSchemaError) -> Node {
            guard i < bytes.count else { return atom }
            switch bytes[i] {
            case UInt8(ascii: "?"): i += 1; return .repeated(atom, min: 0, max: 1)
            case UInt8(ascii: "*"): i += 1; return .repeated(atom, min: 0, max: nil)
            case UInt8(ascii: "+"): i += 1; return .repeated(atom, min: 1, max: nil)
            case UInt8(ascii: "{"):
                i += 1
                let lo = try number()
                var hi: Int? = lo
                if i < bytes.count, bytes[i] == UInt8(ascii: ",") {
                    i += 1
                    hi = i < bytes.count && bytes[i] != UInt8(ascii: "}") ? try number() : nil
                }
                guard i < bytes.count, bytes[i] == UInt8(ascii: "}") else { throw fail("unclosed {") }
                i += 1
                if let hi, hi < lo { throw fail("{n,m} with m < n") }
                return .repeated(atom, min: lo, max: hi)
            default: return atom
            }
        }

        mutating func number() throws(PayloadSchemaError) -> Int {
            var n = 0, digits = 0
            while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39, digits < 4 {
                n = n * 10 + Int(bytes[i] - 0x30)
                i += 1
                digits += 1
            }
            guard digits > 0, n <= 1000 else { throw fail("a count of at most 1000 expected") }
            return n
        }
    }
}

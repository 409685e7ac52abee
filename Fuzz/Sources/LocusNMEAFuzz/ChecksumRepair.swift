/// The input with every `*hh` rewritten to the right checksum for the bytes before it, so that
/// mutated sentences get past the framer and reach the sentence parsers (a random mutation
/// almost never keeps the XOR right). Mirrors `NMEAFramer`: a sentence starts at `$` or `!`,
/// ends at CR or LF, and its checksum is the XOR of the bytes between the start and the first
/// `*`. Two bytes after the `*` are overwritten only if neither ends or restarts the line, so
/// the line structure (and so `missingChecksum`/`overlong` handling) is what the input had.
enum ChecksumRepair {
    static func repaired(_ input: UnsafeRawBufferPointer) -> [UInt8] {
        var out = Array(input)
        var inSentence = false, sum: UInt8 = 0
        var i = 0
        while i < out.count {
            let c = out[i]
            switch c {
            case 0x24, 0x21: // `$`, `!`: a new sentence
                inSentence = true
                sum = 0
            case 0x0A, 0x0D:
                inSentence = false
            case 0x2A where inSentence: // `*`
                inSentence = false
                if i + 2 < out.count, !endsLine(out[i + 1]), !endsLine(out[i + 2]) {
                    out[i + 1] = hexDigit(sum >> 4)
                    out[i + 2] = hexDigit(sum & 0x0F)
                    i += 2
                }
            default:
                if inSentence { sum ^= c }
            }
            i += 1
        }
        return out
    }

    private static func endsLine(_ c: UInt8) -> Bool {
        c == 0x0A || c == 0x0D || c == 0x24 || c == 0x21
    }

    private static func hexDigit(_ v: UInt8) -> UInt8 {
        v < 10 ? 0x30 + v : 0x41 + v - 10
    }
}

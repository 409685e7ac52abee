/// The validator's fast path for the exact byte layout LocusCore writes.
extension MessageValidator {
    /// The fast path for envelopes laid out exactly as `EnvelopeCodec` writes them —
    /// `{"type":"…","version":N,"producer":"…","seq":N,"topic_seq":N,"time":"YYYY-MM-DDTHH:MM:SS.mmmZ","payload":{…}}`
    /// (`topic_seq` optional)
    /// with no white space — which is nearly all traffic. Returns the index of the (known)
    /// type and where the payload lies if the envelope is valid; nil means "not shown valid
    /// here", and the general path then decides, so both paths accept exactly the same envelopes.
    @inline(__always)
    func canonicalEnvelope(_ buffer: UnsafeBufferPointer<UInt8>) -> (typeIndex: Int, payload: Range<Int>)? {
        var s = JSONScanner(buffer)
        let n = s.n
        // The shortest canonical envelope is about 110 bytes; below 96 the general path decides.
        guard n >= 96 else { return nil }
        // The constants are eight ASCII bytes as `JSONScanner.word(at:)` reads them (first byte lowest).
        // {"type":"
        guard s.word(at: 0) == 0x3A22_6570_7974_227B /* {"type": */ , s.p[8] == 0x22 else { return nil }
        s.i = 8
        guard s.string(), !s.lastStringEscaped else { return nil }
        let typeToken = (start: 8, end: s.i)
        // ,"version":
        guard s.i + 11 <= n, s.word(at: s.i) == 0x6F69_7372_6576_222C /* ,"versio */, s.word(at: s.i + 3) == 0x3A22_6E6F_6973_7265 /* ersion": */ else { return nil }
        s.i += 11
        guard let version = s.integer(), version >= 1 else { return nil }
        // ,"producer":"
        guard s.i + 13 <= n, s.word(at: s.i) == 0x6375_646F_7270_222C /* ,"produc */, s.word(at: s.i + 5) == 0x223A_2272_6563_7564 /* ducer":" */ else {
            return nil
        }
        s.i += 12
        guard s.string(), !s.lastStringEscaped else { return nil }
        // ,"seq":
        guard s.i + 8 <= n, s.word(at: s.i) & 0x00FF_FFFF_FFFF_FFFF == 0x003A_2271_6573_222C /* ,"seq": */ else { return nil }
        s.i += 7
        guard let seq = s.integer(), seq >= 0 else { return nil }
        // ,"topic_seq":
        if s.i + 13 <= n, s.word(at: s.i) == 0x5F63_6970_6F74_222C /* ,"topic_ */, s.word(at: s.i + 5) == 0x3A22_7165_735F_6369 /* ic_seq": */ {
            s.i += 13
            guard let topicSeq = s.integer(), topicSeq >= 0 else { return nil }
        }
        // ,"time":"YYYY-MM-DDTHH:MM:SS.mmmZ"
        guard s.i + 34 <= n, s.word(at: s.i) == 0x3A22_656D_6974_222C /* ,"time": */, s.p[s.i + 8] == 0x22, s.p[s.i + 33] == 0x22,
              CanonicalTimestamp.check(s.p + s.i + 9) == true else {
            return nil
        }
        s.i += 34
        // ,"payload":{
        guard s.i + 12 <= n, s.word(at: s.i) == 0x616F_6C79_6170_222C /* ,"payloa */, s.word(at: s.i + 4) == 0x7B3A_2264_616F_6C79 /* yload":{ */ else { return nil }
        s.i += 11
        let payloadStart = s.i
        guard s.object(depth: 1) else { return nil }
        guard s.i + 1 == n, s.p[s.i] == 0x7D else { return nil }
        let quotedType = UnsafeBufferPointer(start: s.p + typeToken.start, count: typeToken.end - typeToken.start)
        guard let typeIndex = knownTypes.index(ofQuoted: quotedType) else { return nil }
        return (typeIndex, payloadStart..<s.i)
    }
}

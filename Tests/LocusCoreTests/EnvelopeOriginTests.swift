import Testing
@testable import LocusCore

struct EnvelopeOriginTests {
    func origin(_ text: String) -> EnvelopeOrigin? { Array(text.utf8).withUnsafeBytes { EnvelopeOrigin.read($0) } }

    @Test func readsTheCanonicalAndOtherLayouts() {
        #expect(origin(#"{"type":"obs.fix","version":1,"producer":"gps0","seq":7,"time":"2024-05-17T08:00:00.000Z","payload":{}}"#)
                == EnvelopeOrigin(producer: "gps0", seq: 7))
        #expect(origin(#" { "seq" : 3 , "producer" : "g\u0070s", "type":"obs.fix" } "#) == EnvelopeOrigin(producer: "gps", seq: 3))
        #expect(origin(#"{"producer":"p"}"#) == nil)
        #expect(origin("not json") == nil)
    }

    /// Found by the envelope fuzz target: the hub forwards a member whose string holds a lone
    /// UTF-16 surrogate escape, and Foundation's parser then refused the whole body, so the
    /// producer went unread — and the hub's reserved-producer check with it.
    @Test func aMemberTheHubForwardsDoesNotHideTheProducer() {
        #expect(origin(#"{"type":"obs.fix","version":1,"producer":"locus","junk":"\ud800","seq":2,"time":"2024-05-17T08:00:00Z","payload":{}}"#)
                == EnvelopeOrigin(producer: "locus", seq: 2))
        // As EnvelopeCodec.decode: the last of a repeated key.
        #expect(origin(#"{"producer":"evil","seq":1,"producer":"locus","type":"obs.fix"}"#) == EnvelopeOrigin(producer: "locus", seq: 1))
    }
}

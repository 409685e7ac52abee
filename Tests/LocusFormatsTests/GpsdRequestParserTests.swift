import LocusCore
@testable import LocusFormats
import Testing

/// What a gpsd client sends, split into requests as gpsd 3.22 reads them.
struct GpsdRequestParserTests {
    static let session = "?WATCH={\"enable\":true,\"json\":true};\r\n?POLL;?DEVICES;\n ?DEVICE={\"path\":\"gps0\"};?VERSION;?WATCH;?DEVICE;"
    static let expected: [Result<GpsdRequest, GpsdRequestProblem>] = [
        .success(.watch(GpsdWatchRequest(enable: true, json: true))), .success(.poll), .success(.devices),
        .success(.device(GpsdDeviceRequest(path: "gps0", changes: []))), .success(.version), .success(.watch(nil)),
        .success(.device(nil)),
    ]

    @Test func aSessionReadsAsItsRequestsHoweverItIsSplit() {
        let bytes = Array(Self.session.utf8)
        for piece in 1...bytes.count {
            var parser = GpsdRequestParser()
            var out: [Result<GpsdRequest, GpsdRequestProblem>] = []
            var i = 0
            while i < bytes.count {
                out += parser.feed(bytes[i..<min(bytes.count, i + piece)])
                i += piece
            }
            #expect(out == Self.expected, "pieces of \(piece) bytes")
            #expect(!parser.hasPartialRequest)
        }
    }

    @Test func anUnfinishedRequestWaitsAndATooLongOneIsRefusedOnce() {
        var parser = GpsdRequestParser(maxRequestBytes: 64)
        #expect(parser.feed(Array("?WATCH={\"enable\":".utf8)).isEmpty)
        #expect(parser.hasPartialRequest)
        #expect(parser.feed(Array("true}".utf8)) == [.success(.watch(GpsdWatchRequest(enable: true)))])
        let long = parser.feed(Array(("?WATCH={\"device\":\"" + String(repeating: "x", count: 80)).utf8))
        #expect(long == [.failure(.tooLong(limit: 64))])
        #expect(!parser.hasPartialRequest)
    }

    /// Issue 49 item 9: the bound holds however the bytes arrive. A request one byte past it is
    /// refused though it comes whole in one read, and so is one that completes a partial
    /// request (which could reach about twice the bound).
    @Test func aRequestPastTheBoundIsRefusedHoweverItArrives() {
        func request(_ n: Int) -> [UInt8] {
            let frame = "?WATCH={\"device\":\"\"};".utf8.count
            return Array(("?WATCH={\"device\":\"" + String(repeating: "x", count: n - frame) + "\"};").utf8)
        }
        var parser = GpsdRequestParser(maxRequestBytes: 64)
        #expect(parser.feed(request(64)) == [.success(.watch(GpsdWatchRequest(device: String(repeating: "x", count: 64 - 21))))])
        #expect(parser.feed(Array("?VERSION;".utf8) + request(65)) == [.success(.version), .failure(.tooLong(limit: 64))])
        #expect(!parser.hasPartialRequest)

        var split = GpsdRequestParser(maxRequestBytes: 64)
        let long = request(120)
        #expect(split.feed(long[0..<60]).isEmpty)
        #expect(split.feed(long[60...]) == [.failure(.tooLong(limit: 64))])
        #expect(!split.hasPartialRequest)
    }

    @Test func malformedRequestsAreProblemsWithGpsdsMessages() {
        var parser = GpsdRequestParser()
        let out = parser.feed(Array("?FOO;hello\n?WATCH={\"enable\":\"yes\"};?WATCH={\"x\":1};?WATCH=[1];?WATCH={oops};?DEVICE={\"bps\":9600,\"path\":\"a\"};?WATCH={\"raw\":3};".utf8))
        #expect(out.map { r -> String in
            switch r {
            case .success(let q): return "ok \(q)"
            case .failure(let p): return p.message
            }
        } == [
            "Unrecognized request '?FOO'",
            "Unrecognized request 'hello'",
            "Invalid WATCH: 'enable' must be true or false",
            "Invalid WATCH: unknown attribute 'x'",
            "Invalid WATCH: the argument is not a JSON object",
            "Invalid WATCH: the argument is not a JSON object",
            "ok device(Optional(LocusFormats.GpsdDeviceRequest(path: Optional(\"a\"), changes: [\"bps\"])))",
            "Invalid WATCH: 'raw' must be 0, 1 or 2",
        ])
    }

    @Test func aWatchKeepsWhatARequestLeavesOut() {
        var w = GpsdReportWriter.Watch()
        w = w.applying(GpsdWatchRequest(enable: true))
        #expect(w.enable && w.json)  // enabling without a format means JSON, as gpsd does
        w = w.applying(GpsdWatchRequest(device: "gps1"))
        #expect(w.enable && w.json && w.device == "gps1")
        w = w.applying(GpsdWatchRequest(enable: false))
        #expect(!w.enable && w.json && w.device == "gps1")
        let line = GpsdReportWriter.watch(w)
        #expect(String(decoding: line, as: UTF8.self) ==
                "{\"class\":\"WATCH\",\"enable\":false,\"json\":true,\"nmea\":false,\"raw\":0,\"scaled\":false,\"timing\":false,\"split24\":false,\"pps\":false,\"device\":\"gps1\"}\r\n")
    }
}

import Foundation
import LocusCore
import LocusTestKit
@testable import LocusWebPlugin
import LocusWebRequests
import NIOCore
import Testing

/// The web gateway's parts without a network: what clients send (queries, WebSocket requests,
/// event ids), how an event is framed, the bounded per-client queues, and the state `/state`
/// and `/regions.geojson` serve. The HTTP end is EndToEndTests/WebGatewayTests.
struct WebGatewayUnitTests {
    static func envelope(_ type: String, producer: String = "fences", seq: Int = 1, time: String = "2010-08-05T14:23:59.000Z",
                         _ payload: String) -> [UInt8] {
        Array(#"{"type":"\#(type)","version":1,"producer":"\#(producer)","seq":\#(seq),"time":"\#(time)","payload":\#(payload)}"#.utf8)
    }

    /// The page is served from the binary: every file of `Plugins/Web/Resources/` (embedded in
    /// code by SwiftPM), with its bytes, and nothing else.
    @Test func everyPageFileIsServedAsItIs() throws {
        let resources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Resources")
        let names = try FileManager.default.contentsOfDirectory(atPath: resources.path).sorted()
        #expect(names == PageAssets.files.keys.sorted())
        for name in names {
            let bytes = Array(try Data(contentsOf: resources.appendingPathComponent(name)))
            #expect(PageAssets.files[name]?.bytes == bytes, "\(name)")
        }
    }

    @Test func webSocketRequestsSubscribeUnsubscribeAndRefuseNonsense() {
        var topics: [String] = []
        var r = WebSocketRequest.apply(#"{"subscribe":["region.","visit."]}"#, to: &topics)
        #expect(!r.bad && topics == ["region.", "visit."])
        #expect(String(decoding: r.json, as: UTF8.self) == #"{"subscribed":["region.","visit."]}"#)
        r = WebSocketRequest.apply(#"{"unsubscribe":["region."],"subscribe":["beacon."]}"#, to: &topics)
        #expect(!r.bad && topics == ["visit.", "beacon."])
        for bad in [#"{"subscribe":"region."}"#, #"{"subscribe":["Region.."]}"#, #"{"publish":["x"]}"#, "not json", #"["region."]"#] {
            let before = topics
            r = WebSocketRequest.apply(bad, to: &topics)
            #expect(r.bad && topics == before, "\(bad)")
            #expect(String(decoding: r.json, as: UTF8.self).hasPrefix(#"{"error":"#))
        }
        let many = "{\"subscribe\":[" + (0...WebSocketRequest.maxTopics).map { "\"t\($0).\"" }.joined(separator: ",") + "]}"
        #expect(WebSocketRequest.apply(many, to: &topics).bad)
    }

    @Test func queriesAndEventIds() throws {
        let q = QueryItems.parse("topics=region.%2Cvisit.&token=a+b%20c&topics=ignored&flag")
        #expect(q["topics"] == "region.,visit." && q["token"] == "a b c" && q["flag"] == "")
        #expect(QueryItems.topics("region., visit.").topics == ["region.", "visit."])
        #expect(QueryItems.topics("").topics == nil && QueryItems.topics(nil).bad == nil)
        #expect(QueryItems.topics("region.,Bad").bad == "Bad")
        #expect(QueryItems.split(target: "/events?x=1").path == "/events" && QueryItems.split(target: "/ws").query == nil)
        #expect(try LastEventID.parse("42").get() == 42)
        #expect(try LastEventID.parse("").get() == nil)
        for bad in ["-1", "4x", "99999999999999999999999", " 1", "+68", "00", "042"] {
            #expect(throws: LastEventIDError.self) { try LastEventID.parse(bad).get() }
        }
    }

    /// An outside publisher's envelope with line breaks must not end the SSE data line.
    @Test func anEventIsOneSSEFrame() throws {
        let body = Array("{\"type\":\"x\",\n\"payload\":{\"a\":\r\n1}}".utf8)
        let frame = String(decoding: FeedItem(id: 7, topic: "region.enter.home", body: body).sseFrame, as: UTF8.self)
        #expect(frame.hasPrefix("id: 7\ndata: {\"topic\":\"region.enter.home\",\"id\":7,\"envelope\":"))
        #expect(frame.hasSuffix("\n\n") && frame.dropLast(2).split(separator: "\n").count == 2)
        let data = try #require(frame.split(separator: "\n").last?.dropFirst(6))
        #expect((try JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any])?["topic"] as? String == "region.enter.home")
        #expect(!String(decoding: FeedItem(id: nil, topic: "obs.fix.gps0", body: Array("{}".utf8)).sseFrame, as: UTF8.self).contains("id:"))
    }

    /// Issue 29, item 6: a client that falls `queueLimit` events or `bufferLimit` bytes behind
    /// is cut off (its outbox ends, its connection is closed) and counted, with the events it
    /// was waiting for; a client that reads gets everything.
    @Test func aClientPastItsBoundIsCutOffAndCounted() async throws {
        final class Closed: @unchecked Sendable {
            /// Guards `count`; the test reads it directly, on the task whose `feed.add` calls `close`.
            let lock = NSLock()
            var count = 0
            func close() { lock.withLock { count += 1 } }
        }
        let closed = Closed()
        let feed = EventFeed(historyLimit: 3, queueLimit: 5, maxClients: 2)
        let subscribed = feed.subscribe(topics: nil, withHistory: false, close: { closed.close() })
        let slow = try #require(subscribed)
        let fast = try #require(feed.subscribe(topics: ["region."], withHistory: false))
        #expect(feed.subscribe(topics: nil, withHistory: false) == nil)
        #expect(feed.counters.counters.clientsRefused == 1)
        var got: [UInt64] = []
        for k in 0..<20 {
            feed.add(FeedItem(id: UInt64(k), topic: k % 2 == 0 ? "region.enter.a" : "obs.fix.gps0", body: Array("{}".utf8)))
            if k % 2 == 0, let batch = await fast.outbox.next() {
                for case .event(let item) in batch { got.append(item.id!) }
                fast.outbox.written()
            }
        }
        #expect(got == Array(stride(from: 0, to: 20, by: 2)))
        // The slow client took five events, the sixth cut it off: those six are lost to it.
        #expect(closed.count == 1)
        #expect(feed.counters.counters.clientsCutOff == 1)
        #expect(feed.counters.counters.droppedSlowClient == 6)
        #expect(feed.counters.counters.clientsOpen == 1)
        #expect(await slow.outbox.next() == nil)
        #expect(feed.clientCount == 1)
        feed.unsubscribe(fast.id)
        #expect(feed.counters.counters.clientsOpen == 0)

        // In bytes: 1 KB events against a 4 KiB buffer, however many events the queue allows.
        let bytes = EventFeed(historyLimit: 0, queueLimit: 1000, bufferLimit: 4096, maxClients: 1)
        let stalled = try #require(bytes.subscribe(topics: nil, withHistory: false))
        let big = Array(("{\"pad\":\"" + String(repeating: "x", count: 1000) + "\"}").utf8)
        for k in 0..<10 { bytes.add(FeedItem(id: UInt64(k), topic: "obs.fix.gps0", body: big)) }
        #expect(bytes.counters.counters.clientsCutOff == 1)
        #expect(bytes.counters.counters.droppedSlowClient == 4, "three 1.05 KB events fit in 4 KiB, the fourth did not")
        #expect(await stalled.outbox.next() == nil)
        // One event larger than the whole buffer still goes to a client with nothing waiting.
        let huge = try #require(bytes.subscribe(topics: nil, withHistory: false))
        bytes.add(FeedItem(id: 11, topic: "obs.fix.gps0", body: Array(("{\"pad\":\"" + String(repeating: "x", count: 8000) + "\"}").utf8)))
        #expect(bytes.counters.counters.clientsCutOff == 1)
        #expect(await huge.outbox.next()?.count == 1)
    }

    /// Issue 29, item 6: the history is encoded once and shared: two clients that ask for it
    /// get the same chunks (not copies), holding exactly the last `historyLimit` events, and
    /// a client's topics choose among them.
    @Test(arguments: [1, 7, 100, 1000])
    func theHistoryIsSharedAndHoldsTheLastEvents(limit: Int) throws {
        let feed = EventFeed(historyLimit: limit, queueLimit: 10, maxClients: 10)
        let pad = String(repeating: "p", count: 300)
        // Enough events for several 16 KiB chunks, some pushed out.
        for k in 0..<700 {
            feed.add(FeedItem(id: UInt64(k), topic: k % 3 == 0 ? "region.enter.a" : "obs.fix.gps0", body: Array("{\"k\":\"\(pad)\"}".utf8)))
        }
        let a = try #require(feed.subscribe(topics: nil, withHistory: true)?.history)
        let b = try #require(feed.subscribe(topics: ["region."], withHistory: true)?.history)
        #expect(a.chunks.count == b.chunks.count && zip(a.chunks, b.chunks).allSatisfy { $0 === $1 })
        let kept = Array(max(0, 700 - limit)..<700).map(UInt64.init)
        #expect(a.count == kept.count)
        for maxBytes in [100, 4096, 16384] {
            #expect(Self.ids(a.pieces(matching: nil, maxBytes: maxBytes), maxBytes: maxBytes) == kept)
            #expect(Self.ids(b.pieces(matching: ["region."], maxBytes: maxBytes), maxBytes: maxBytes) == kept.filter { $0 % 3 == 0 })
        }
        // The history goes on after a snapshot; the snapshot does not change.
        feed.add(FeedItem(id: 700, topic: "region.enter.a", body: Array("{}".utf8)))
        #expect(Self.ids(a.pieces(matching: nil, maxBytes: 4096), maxBytes: 4096) == kept)
        let c = try #require(feed.subscribe(topics: nil, withHistory: true)?.history)
        #expect(Self.ids(c.pieces(matching: nil, maxBytes: 4096), maxBytes: 4096) == Array((kept + [700]).suffix(limit)))
    }

    /// The SSE ids in history pieces, which must each be at most `maxBytes` (or one frame).
    static func ids(_ pieces: HistorySnapshot.Pieces, maxBytes: Int) -> [UInt64] {
        var text = ""
        for p in pieces {
            #expect(p.readableBytes <= max(maxBytes, 400))
            text += String(buffer: p)
        }
        #expect(text.isEmpty || text.hasSuffix("\n\n"))
        return text.split(separator: "\n").compactMap { $0.hasPrefix("id: ") ? UInt64($0.dropFirst(4)) : nil }
    }

    @Test func stateAndGeoJSONFollowTheEvents() throws {
        let feed = EventFeed(historyLimit: 0, queueLimit: 1, maxClients: 1)
        let circle = #"{"region":"depot","monitor":"fences","removed":false,"origin":"config","geometry":{"type":"Point","coordinates":[14.3,45.7]},"radius":150,"notify_on_entry":true,"notify_on_exit":true,"properties":{"name":"Depot"}}"#
        feed.add(FeedItem(id: 1, topic: "region.condition.depot", body: Self.envelope("region.condition", circle)))
        feed.add(FeedItem(id: 2, topic: "region.condition.gone", body: Self.envelope("region.condition", circle.replacingOccurrences(of: "depot", with: "gone"))))
        feed.add(FeedItem(id: 3, topic: "region.condition.gone", body: Self.envelope("region.condition", #"{"region":"gone","monitor":"fences","removed":true}"#)))
        for (k, (device, state)) in [("van1", "satisfied"), ("van2", "unsatisfied")].enumerated() {
            feed.add(FeedItem(id: UInt64(4 + k), topic: "region.enter.depot.\(device)", body: Self.envelope("region.enter", seq: 2 + k,
                #"{"region":"depot","monitor":"fences","device":"\#(device)","state":"\#(state)","previous_state":"unknown","assumed":false,"detected_after_restart":false,"properties":{}}"#)))
        }
        feed.add(FeedItem(id: nil, topic: "obs.fix.gps0", body: Self.envelope("obs.fix", producer: "gps0", #"{"source":"gps0","mode":"3d","lat":1,"lon":2}"#)))
        feed.add(FeedItem(id: 6, topic: "location.update.here", body: Self.envelope("location.update", producer: "here", #"{"source":"gps0","mode":"3d","lat":3,"lon":4}"#)))
        // A raw fix after a location update of the same source does not replace it.
        feed.add(FeedItem(id: nil, topic: "obs.fix.gps0", body: Self.envelope("obs.fix", producer: "gps0", #"{"source":"gps0","mode":"3d","lat":5,"lon":6}"#)))
        let state = try #require(try JSONSerialization.jsonObject(with: Data(feed.stateJSON())) as? [String: Any])
        let regions = state["regions"] as? [[String: Any]] ?? []
        #expect(regions.map { $0["device"] as? String } == ["van1", "van2"])
        #expect(regions.allSatisfy { ($0["definition"] as? [String: Any])?["radius"] as? Double == 150 })
        #expect(((state["locations"] as? [[String: Any]])?.first?["payload"] as? [String: Any])?["lat"] as? Double == 3)
        let geo = try #require(try JSONSerialization.jsonObject(with: Data(feed.regionsGeoJSON())) as? [String: Any])
        let features = geo["features"] as? [[String: Any]] ?? []
        #expect(features.count == 1, "the removed condition is gone")
        let props = try #require(features.first?["properties"] as? [String: Any])
        #expect(props["state"] as? String == "satisfied" && props["region"] as? String == "depot" && props["radius"] as? Double == 150)
    }

    /// `precision` applies to what the gateway serves: positions on the grid, speed gone.
    @Test func precisionReducesWhatIsServed() throws {
        var c = WebConfiguration()
        c.precision = 1000
        let filter = WebFilter(c)
        let item = try #require(filter.item(id: 1, topic: "location.update.here", body: Self.envelope("location.update", producer: "here",
            #"{"source":"gps0","mode":"3d","lat":45.7721750,"lon":14.3576592,"h_accuracy":4.4,"speed":1.5,"alt_msl":540}"#)))
        let payload = try #require((try JSONSerialization.jsonObject(with: Data(item.json)) as? [String: Any])?["envelope"] as? [String: Any])["payload"] as? [String: Any]
        #expect(payload?["speed"] == nil && payload?["alt_msl"] == nil)
        #expect((payload?["h_accuracy"] as? Double ?? 0) >= 1000)
        #expect(payload?["lat"] as? Double != 45.7721750)
        // Not an object payload: not served, and the caller counts it.
        #expect(filter.item(id: 2, topic: "x.y", body: Self.envelope("x.y", "[1,2]")) == nil)
        #expect(WebFilter(WebConfiguration()).item(id: 2, topic: "x.y", body: Self.envelope("x.y", "[1,2]")) != nil)
    }

    @Test func theFactoryRefusesAnOpenAddressWithoutAToken() throws {
        /// Builds the plugin from `json` as the runtime does from YAML.
        struct Built: Decodable {
            init(from decoder: any Decoder) throws {
                let setup = PluginSetup(id: "web", kind: .sink, configDirectory: NSTemporaryDirectory(),
                                        endpoints: HubEndpoints(ingest: "", publish: "", control: ""), logger: .init(label: "t"))
                _ = try WebPlugin.factory.build(decoder, setup)
            }
        }
        func build(_ json: String) throws { _ = try decodeConfiguration(Built.self, json) }
        #expect(throws: ConfigValueError.self) { try build(#"{"listen": "0.0.0.0:8080"}"#) }
        #expect(throws: ConfigValueError.self) { try build(#"{"listen": "8080"}"#) }
        #expect(throws: ConfigValueError.self) { try build(#"{"precision": 0.5}"#) }
        let short = NSTemporaryDirectory() + "web-token-\(UUID().uuidString)"
        try "short\n".write(toFile: short, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: short) }
        #expect(throws: ConfigValueError.self) { try build(#"{"listen": "0.0.0.0:8080", "token_file": "\#(short)"}"#) }
        try "a-token-long-enough-1234\n".write(toFile: short, atomically: true, encoding: .utf8)
        try build(#"{"listen": "0.0.0.0:8080", "token_file": "\#(short)"}"#)
        try build("{}")
    }
}

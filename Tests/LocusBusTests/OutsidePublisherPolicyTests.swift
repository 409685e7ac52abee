import Foundation
import LocusCore
import Testing
@testable import LocusBus

struct OutsidePublisherPolicyTests {
    let policy = OutsidePublisherPolicy(reservedTopics: ["status.", "region.", "location."], reservedProducers: ["locus", "fences"],
                                        allowedByEndpoint: ["tcp://*:5555": ["region.enter."]],
                                        allowedByClient: ["alice": ["status.alice"]])

    func check(_ topic: String, producer: String, user: String? = nil, endpoints: [String] = [], extra: String = "") -> DropReason? {
        let body = Array(#"{"type":"obs.fix","version":1,"producer":"\#(producer)",\#(extra)"seq":1,"time":"2024-05-17T08:00:00.000Z","payload":{}}"#.utf8)
        return Array(topic.utf8).withUnsafeBytes { t in
            body.withUnsafeBytes { b in
                policy.check(topic: t, body: b) {
                    var c = OutsideConnection(fd: -1, user: user, ingestEndpoints: [])
                    c.endpoints = endpoints
                    return c
                }?.reason
            }
        }
    }

    @Test func refusesReservedTopicsAndProducers() {
        #expect(check("obs.fix.phone", producer: "phone") == nil)
        #expect(check("obs.fix.phone", producer: "fences") == .reserved)
        #expect(check("obs.fix.phone", producer: "locus") == .reserved)
        // A member the hub forwards (a lone surrogate escape) does not hide the producer.
        #expect(check("obs.fix.phone", producer: "locus", extra: #""junk":"\ud800","#) == .reserved)
        // Found by the envelope fuzz target: a number beyond Double's range (the hub's grammar
        // check passes it) made the producer unreadable, so the check was skipped.
        #expect(check("obs.fix.phone", producer: "locus", extra: #""x":1e9992,"#) == .notJSON)
        #expect(check("status.x", producer: "phone") == .reserved)
        #expect(check("region.enter.home", producer: "phone") == .reserved)
        #expect(check("location.update.here", producer: "phone") == .reserved)
        // A prefix is a whole segment: regional. is not region.
        #expect(check("regional.x", producer: "phone") == nil)
    }

    @Test func grantsByEndpointAndByClientKey() {
        #expect(check("region.enter.home", producer: "p", endpoints: ["tcp://*:5555"]) == nil)
        #expect(check("region.exit.home", producer: "p", endpoints: ["tcp://*:5555"]) == .reserved)
        #expect(check("status.alice", producer: "p", user: "alice") == nil)
        #expect(check("status.alice", producer: "p", user: "bob") == .reserved)
        // A grant never lends a reserved producer name.
        #expect(check("region.enter.home", producer: "fences", endpoints: ["tcp://*:5555"]) == .reserved)
    }

    @Test func localAddressesMatchTheirEndpoints() {
        #expect(LocalAddress.unix(path: "/run/locus/ingest.sock").matches("ipc:///run/locus/ingest.sock"))
        #expect(!LocalAddress.unix(path: "/run/locus/ingest.sock").matches("ipc:///run/locus/other.sock"))
        #expect(LocalAddress.inet(host: "10.0.0.2", port: 5555).matches("tcp://*:5555"))
        #expect(LocalAddress.inet(host: "10.0.0.2", port: 5555).matches("tcp://10.0.0.2:5555"))
        #expect(!LocalAddress.inet(host: "10.0.0.2", port: 5556).matches("tcp://*:5555"))
        #expect(LocalAddress.inet(host: "127.0.0.1", port: 5555).matches("tcp://localhost:5555"))
    }
}

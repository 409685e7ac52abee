import Foundation
import LocusCore
import LocusFleet
import LocusFormats
@testable import LocusMQTTPlugin
import LocusTestKit
import Testing

/// The `mqtt` source's reading of messages and its device table. Its run against a real broker
/// is EndToEndTests/MQTTSourceTests.
struct MQTTSourceUnitTests {
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Tests/EndToEndTests/Fixtures/owntracks/examples").path

    func read(_ text: String, _ format: MQTTSourceConfiguration.Format = .owntracks) -> Result<IncomingLocation, IncomingLocation.Problem> {
        Array(text.utf8).withUnsafeBytes { IncomingLocation.read($0, format: format) }
    }

    @Test func anOwnTracksLocationBecomesAFixInLocusUnits() throws {
        let l = try read(#"{"_type":"location","lat":71.215592,"lon":3.767957,"acc":35,"alt":40,"vac":19,"vel":36,"cog":270,"tst":1701258666}"#).get()
        #expect(l.time == EventTime(milliseconds: 1_701_258_666_000))
        #expect(l.latitude == 71.215592 && l.horizontalAccuracy == 35 && l.verticalAccuracy == 19 && l.altitude == 40)
        #expect(l.speed == 10)                        // 36 km/h
        let fix = l.fix(source: "ana-phone")
        #expect(fix.mode == .threeD && fix.source == "ana-phone" && fix.course == 270)
        // -1 is "not known" for accuracies, speed and course (iOS; trackers).
        let unknown = try read(#"{"_type":"location","lat":1,"lon":2,"tst":1692430980,"acc":-1,"vac":-1,"vel":-1,"cog":-1}"#).get()
        #expect(unknown.horizontalAccuracy == nil && unknown.verticalAccuracy == nil && unknown.speed == nil && unknown.course == nil)
        let flat = try read(#"{"_type":"location","lat":1,"lon":2,"tst":1692430980}"#).get()
        #expect(flat.fix(source: "x").mode == .twoD)
    }

    @Test func malformedMessagesAreRefusedByReason() {
        #expect(read(#"{"_type":"location","lon":8.6,"tst":1699882482}"#) == .failure(.missingField))
        #expect(read(#"{"_type":"location","lat":"44.2","lon":6.6,"tst":1692430980}"#) == .failure(.wrongType))
        #expect(read(#"{"_type":"location","lat":44.2,"lon":6.6,"tst":1692430980,"acc":"far"}"#) == .failure(.wrongType))
        #expect(read(#"{"_type":"location","lat":144.2,"lon":6.6,"tst":1692430980}"#) == .failure(.outOfRange))
        #expect(read(#"{"_type":"location","lat":44.2,"lon":6.6,"tst":-5}"#) == .failure(.outOfRange))
        #expect(read(#"{"_type":"location","lat":44.2,"lon":6.6,"tst":1e300}"#) == .failure(.outOfRange))
        #expect(read(#"{"_type":"location","lat":44.2,"#) == .failure(.notJSON))
        #expect(read("[1,2]") == .failure(.wrongType))
        #expect(read(#"{"lat":1}"#) == .failure(.missingField))
        #expect(read(#"{"_type":"transition","event":"enter"}"#) == .failure(.ignored))
        #expect(Array(repeating: UInt8(0x20), count: IncomingLocation.maxBytes + 1).withUnsafeBytes {
            IncomingLocation.read($0, format: .owntracks)
        } == .failure(.tooLarge))
        #expect([UInt8]([0x7B, 0xFF, 0x7D]).withUnsafeBytes { IncomingLocation.read($0, format: .owntracks) } == .failure(.notJSON))
    }

    @Test func locusEnvelopesFromAnotherInstance() throws {
        let update = try read(#"{"type":"location.update","version":1,"producer":"here","seq":7,"time":"2010-08-05T14:23:59.000Z","payload":{"source":"gps0","mode":"3d","lat":45.77,"lon":14.35,"alt_msl":542.3,"speed":1.2,"h_accuracy":5}}"#, .locus).get()
        #expect(update.time == EventTime(iso8601: "2010-08-05T14:23:59.000Z") && update.speed == 1.2 && update.altitude == 542.3)
        #expect(read(#"{"type":"obs.fix","version":1,"producer":"g","seq":1,"time":"2010-08-05T14:23:59.000Z","payload":{"source":"g","mode":"none"}}"#, .locus) == .failure(.ignored))
        #expect(read(#"{"type":"region.enter","version":1,"producer":"f","seq":1,"time":"2010-08-05T14:23:59.000Z","payload":{}}"#, .locus) == .failure(.ignored))
        #expect(read(#"{"type":"location.update","version":1,"producer":"here","seq":7,"time":"yesterday","payload":{"lat":1,"lon":2}}"#, .locus) == .failure(.wrongType))
    }

    /// OwnTracks' own examples: every location the schema calls valid is read, every invalid
    /// one is refused, and nothing traps.
    @Test func owntracksOwnExamples() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.examples).sorted()
        #expect(names.count >= 50)
        var read = 0
        for name in names {
            let data = try #require(FileManager.default.contents(atPath: Self.examples + "/" + name))
            let result = Array(data).withUnsafeBytes { IncomingLocation.read($0, format: .owntracks) }
            let invalid = ["illegal", "invalid", "missing", "without", "kaputt"].contains { name.contains($0) }
            // What the example is, read independently (Foundation): a location with lat, lon and tst.
            let o = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
            let isLocation = o?["_type"] as? String == "location" && o?["lat"] is NSNumber && o?["lon"] is NSNumber && o?["tst"] is NSNumber
            if isLocation && !invalid {
                #expect((try? result.get()) != nil, "\(name): \(result)")
                read += 1
            } else if case .success = result {
                Issue.record("\(name) is not a valid location but was read as one")
            }
        }
        #expect(read >= 5, "\(read) valid locations")
    }

    @Test func devicesComeFromTopicLevelsAndAreBoundedAndRateLimited() {
        var t = DeviceTable(levels: [1, 2], maxDevices: 2, maxRate: 2)
        #expect(t.admit(topic: "owntracks/Ana/Phone 1", now: 100) == .publish("ana-phone-1"))
        #expect(t.admit(topic: "owntracks/ana", now: 100) == .badDevice)
        #expect(t.admit(topic: "owntracks/+/#", now: 100) == .badDevice)
        #expect(t.admit(topic: "owntracks/bob/tab", now: 100) == .publish("bob-tab"))
        #expect(t.admit(topic: "owntracks/eve/x", now: 100) == .tooManyDevices)
        // Two a second: a third in the same instant waits for the bucket to refill.
        #expect(t.admit(topic: "owntracks/bob/tab", now: 100) == .publish("bob-tab"))
        #expect(t.admit(topic: "owntracks/bob/tab", now: 100) == .rateLimited)
        #expect(t.admit(topic: "owntracks/bob/tab", now: 100.5) == .publish("bob-tab"))
        #expect(t.count == 2)
        #expect(DeviceTable.busId(String(repeating: "a", count: 100))?.count == 64)
    }

    /// Issue 30, item 9: after a broker restart a device sends what waited in its journal at
    /// once — fixes 25 s apart in their own time, arriving in the same second. They all pass;
    /// fixes for the same moments, or going back in time, are still held to max_rate.
    @Test func aBacklogOfFixesApartInTheirOwnTimePassesTheRateLimit() {
        var t = DeviceTable(levels: [1], maxDevices: 10, maxRate: 2)
        let now = 1_000_000.0
        let backlog = (0..<30).map { t.admit(topic: "locus/van7", now: now, fixTime: now - 1_000 + Double($0) * 25) }
        #expect(backlog.allSatisfy { $0 == .publish("van7") }, "\(backlog)")
        // A flood of one moment: two a second, as before.
        let flood = (0..<5).map { _ in t.admit(topic: "locus/van7", now: now, fixTime: now - 200) }
        #expect(flood.filter { $0 == .rateLimited }.count >= 3, "\(flood)")
        // Older fixes add nothing: only the wall clock refills.
        #expect(t.admit(topic: "locus/van7", now: now, fixTime: now - 500) == .rateLimited)
        #expect(t.admit(topic: "locus/van7", now: now + 0.5, fixTime: now - 500) == .publish("van7"))
    }

    /// A device inventing times a second apart (from long ago, or in the future) gets at most
    /// an hour of fixes' credit at once, not an unlimited rate.
    @Test func inventedFixTimesBuyAtMostTheBacklogAllowance() {
        let now = 1_000_000.0
        for start in [0.0, now - 10, now + 1_000] {
            var t = DeviceTable(levels: [1], maxDevices: 10, maxRate: 2)
            let sent = (0..<20_000).map { t.admit(topic: "locus/eve", now: now, fixTime: start + Double($0)) }
            let passed = sent.filter { $0 == .publish("eve") }.count
            #expect(passed <= Int(DeviceTable.backlogSeconds * 2) + 3, "from \(start): \(passed) of 20000 passed")
        }
    }

    @Test func aPartitionTakesOnlyItsDevicesAndEveryDeviceHasOnePartition() {
        let topics = (0..<300).map { "owntracks/fleet/van\($0)" }
        var owners = [Int](repeating: 0, count: topics.count)
        for i in 0..<3 {
            var t = DeviceTable(levels: [1, 2], maxDevices: 1000, maxRate: 0, partition: (i, 3))
            for (k, topic) in topics.enumerated() {
                switch t.admit(topic: topic, now: 0) {
                case .publish(let id):
                    #expect(PartitionHash.partition(of: id, count: 3) == i)
                    owners[k] += 1
                case .otherPartition: break
                default: Issue.record("\(topic)")
                }
            }
            // Only its own devices are kept, about a third each.
            #expect(t.count > 60 && t.count < 140, "\(t.count)")
        }
        #expect(owners.allSatisfy { $0 == 1 })
    }

    @Test func sourceConfigurationsAreCheckedAtTheirKey() {
        #expect(configErrorKey(MQTTSourceConfiguration.self, #"{"share_group": "g"}"#) == "share_group")
        #expect(configErrorKey(MQTTSourceConfiguration.self, #"{"share_group": "g", "protocol": "5"}"#) == nil)
        #expect(configErrorKey(MQTTSourceConfiguration.self, #"{"subscribe": []}"#) == "subscribe")
        #expect(configErrorKey(MQTTSourceConfiguration.self, #"{"subscribe": ["$share/g/x/#"]}"#) == "subscribe")
        #expect(configErrorKey(MQTTSourceConfiguration.self, #"{"device_levels": [-1]}"#) == "device_levels")
        for bad in ["2/2", "1", "a/2", "-1/2", "0/0", "1/2/3"] {
            #expect(configErrorKey(MQTTSourceConfiguration.self, #"{"partition": "\#(bad)"}"#) == "partition", "\(bad)")
        }
        #expect(configErrorKey(MQTTSourceConfiguration.self, #"{"partition": "1/2"}"#) == nil)
        #expect(configErrorKey(MQTTSourceConfiguration.self, #"{"session_expiry": -1}"#) == "session_expiry")
        #expect(configErrorKey(MQTTSourceConfiguration.self, #"{"session_expiry": 60, "client_id": ""}"#) == "client_id")
        let shared = try? decodeConfiguration(MQTTSourceConfiguration.self, #"{"share_group": "fleet", "protocol": "5"}"#)
        #expect(shared?.subscriptionFilters == ["$share/fleet/owntracks/+/+"])
        for bad in ["", "a/b#", "a/#/b", "a+/b"] {
            #expect(configErrorKey(MQTTSourceConfiguration.self, #"{"ignore_topics": ["\#(bad)"]}"#) == "ignore_topics", "\(bad)")
        }
        #expect(configErrorKey(MQTTSourceConfiguration.self, ##"{"ignore_topics": ["owntracks/fleet/+", "x/#", "#"]}"##) == nil)
    }

    /// Issue 30, item 7: a subscription has no "except", so `ignore_topics` leaves out what a
    /// filter catches but is not the source's — matched as brokers match filters.
    @Test(arguments: [
        ("owntracks/fleet/+", "owntracks/fleet/van7", true),
        ("owntracks/fleet/+", "owntracks/ana/phone", false),
        ("owntracks/fleet/+", "owntracks/fleet/van7/event", false),
        ("owntracks/fleet/+", "owntracks/fleet", false),
        ("owntracks/fleet/#", "owntracks/fleet", true),
        ("owntracks/fleet/#", "owntracks/fleet/van7/event", true),
        ("owntracks/+/van7", "owntracks/fleet/van7", true),
        ("+/+/+", "owntracks//van7", true),
        ("#", "owntracks/fleet/van7", true),
        ("#", "$SYS/broker/uptime", false),
        ("owntracks/fleet/van7", "owntracks/fleet/van7", true),
        ("owntracks/fleet/van7", "owntracks/fleet/van8", false),
    ])
    func ignoredTopicsMatchAsMQTTFilters(filter: String, topic: String, matches: Bool) {
        #expect(MQTTTopicFilter.problem(in: filter) == nil)
        #expect(MQTTTopicFilter(filter).matches(topic) == matches)
    }
}

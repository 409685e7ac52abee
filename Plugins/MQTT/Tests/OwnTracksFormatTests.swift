import Foundation
@testable import LocusMQTTPlugin
import LocusTestKit
import Testing

/// `format: owntracks`: each Locus event's OwnTracks form, field by field (units, the fields
/// Home Assistant needs). The schema check against a real broker is EndToEndTests/MQTTOwnTracksTests.
struct OwnTracksFormatTests {
    func convert(_ f: inout OwnTracksFormat, _ envelope: String) -> [String: Any]? {
        let bytes = Array(envelope.utf8)
        guard let m = bytes.withUnsafeBytes({ f.convert(topic: "t", body: $0) }) else { return nil }
        var o = (try? JSONSerialization.jsonObject(with: Data(m.json))) as? [String: Any]
        o?["@topic"] = m.topicSuffix
        return o
    }

    @Test func aLocationUpdateInOwnTracksUnits() throws {
        var f = OwnTracksFormat(trackerId: "p1", unknownAccuracy: 100)
        let o = try #require(convert(&f, #"{"type":"location.update","version":1,"producer":"here","seq":1,"time":"2010-08-05T14:23:59.250Z","payload":{"source":"gps0","mode":"3d","lat":45.772175035,"lon":14.357659249,"alt_msl":542.6,"speed":1.5,"course":359.7,"h_accuracy":4.4,"v_accuracy":7.5}}"#))
        #expect(o["_type"] as? String == "location" && o["@topic"] as? String == "")
        #expect(o["tst"] as? Int == 1_281_018_239)        // epoch seconds, rounded down
        #expect(o["acc"] as? Int == 4 && o["alt"] as? Int == 543 && o["vac"] as? Int == 8)
        #expect(o["vel"] as? Int == 5)                    // 1.5 m/s = 5.4 km/h
        #expect(o["cog"] as? Int == 0)                    // 359.7 rounds to 360, which is 0
        #expect(o["tid"] as? String == "p1")
        #expect((o["lat"] as? Double).map { abs($0 - 45.7721750) < 1e-7 } == true)
    }

    @Test func accuracyIsNeverMissingOrZero() throws {
        var f = OwnTracksFormat(trackerId: "p1", unknownAccuracy: 100)
        let none = try #require(convert(&f, #"{"type":"location.update","version":1,"producer":"here","seq":1,"time":"2010-08-05T14:23:59.000Z","payload":{"source":"gps0","mode":"2d","lat":1,"lon":2}}"#))
        #expect(none["acc"] as? Int == 100 && none["vel"] == nil && none["alt"] == nil)
        let zero = try #require(convert(&f, #"{"type":"location.update","version":1,"producer":"here","seq":2,"time":"2010-08-05T14:23:59.000Z","payload":{"source":"gps0","mode":"2d","lat":1,"lon":2,"h_accuracy":0.2}}"#))
        #expect(zero["acc"] as? Int == 1)
    }

    @Test func regionAndBeaconTransitionsCarryDescAndAPosition() throws {
        var f = OwnTracksFormat(trackerId: "p1", unknownAccuracy: 100)
        let enter = try #require(convert(&f, #"{"type":"region.enter","version":1,"producer":"fences","seq":3,"time":"2005-05-01T10:15:02.000Z","payload":{"region":"office","monitor":"fences","state":"satisfied","previous_state":"unsatisfied","source":"gps0","fix_time":"2005-05-01T10:15:02.000Z","lat":51.312633,"lon":12.412854,"distance":42.26,"confidence":1,"since":"2005-05-01T10:15:02.000Z","assumed":false,"detected_after_restart":false,"properties":{"name":"Stop 1"}}}"#))
        #expect(enter["_type"] as? String == "transition" && enter["event"] as? String == "enter" && enter["@topic"] as? String == "/event")
        #expect(enter["desc"] as? String == "Stop 1" && enter["rid"] as? String == "office" && enter["t"] as? String == "c")
        #expect(enter["acc"] as? Int == 100)               // no h_accuracy in the event
        #expect(enter["wtst"] as? Int == OwnTracksFormat.waypointTime("fences/office"))
        let exit = try #require(convert(&f, #"{"type":"region.exit","version":1,"producer":"fences","seq":4,"time":"2005-05-01T10:20:00.000Z","payload":{"region":"home","monitor":"fences","state":"unsatisfied","previous_state":"satisfied","lat":51.3,"lon":12.4,"h_accuracy":12.6,"properties":{}}}"#))
        #expect(exit["event"] as? String == "leave" && exit["desc"] as? String == "home" && exit["acc"] as? Int == 13)

        // A beacon transition has no position: it waits for a location, then takes the last one.
        let beacon = #"{"type":"beacon.enter","version":1,"producer":"beacons","seq":1,"time":"2024-01-01T00:00:00.000Z","payload":{"beacon":"desk","monitor":"beacons","state":"satisfied","previous_state":"unknown","beacons":[],"properties":{"name":"Desk"}}}"#
        #expect(convert(&f, beacon) == nil)
        _ = convert(&f, #"{"type":"location.update","version":1,"producer":"here","seq":1,"time":"2024-01-01T00:00:00.000Z","payload":{"source":"gps0","mode":"2d","lat":10,"lon":20,"h_accuracy":8}}"#)
        let b = try #require(convert(&f, beacon))
        #expect(b["t"] as? String == "b" && b["desc"] as? String == "Desk" && b["lat"] as? Double == 10 && b["acc"] as? Int == 8)
    }

    /// A circle's definition (`publish_conditions`) is an OwnTracks waypoint whose `tst` is the
    /// `wtst` of its transitions; polygons and removals have no OwnTracks form.
    @Test func aCircleDefinitionIsAWaypoint() throws {
        var f = OwnTracksFormat(trackerId: "p1", unknownAccuracy: 100)
        let w = try #require(convert(&f, #"{"type":"region.condition","version":1,"producer":"fences","seq":1,"time":"2010-08-05T14:23:59.250Z","payload":{"region":"car-park","monitor":"fences","removed":false,"origin":"config","geometry":{"coordinates":[14.3564,45.7702],"type":"Point"},"radius":149.6,"notify_on_entry":true,"notify_on_exit":true,"properties":{"name":"Lakeside car park"}}}"#))
        #expect(w["_type"] as? String == "waypoint" && w["@topic"] as? String == "/waypoint")
        #expect(w["desc"] as? String == "Lakeside car park" && w["rid"] as? String == "car-park")
        #expect(w["lat"] as? Double == 45.7702 && w["lon"] as? Double == 14.3564)
        #expect(w["rad"] as? Int == 150)
        #expect(w["tst"] as? Int == OwnTracksFormat.waypointTime("fences/car-park"))
        // Without a name, the id is the desc; a radius under a metre is still a region.
        let small = try #require(convert(&f, #"{"type":"region.condition","version":1,"producer":"fences","seq":2,"time":"2010-08-05T14:23:59.250Z","payload":{"region":"pin","monitor":"fences","removed":false,"origin":"runtime","geometry":{"coordinates":[1,2],"type":"Point"},"radius":0.2,"notify_on_entry":true,"notify_on_exit":true,"properties":{}}}"#))
        #expect(small["desc"] as? String == "pin" && small["rad"] as? Int == 1)

        let polygon = #"{"type":"region.condition","version":1,"producer":"fences","seq":3,"time":"2010-08-05T14:23:59.250Z","payload":{"region":"yard","monitor":"fences","removed":false,"origin":"config","geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]},"notify_on_entry":true,"notify_on_exit":true,"properties":{}}}"#
        #expect(convert(&f, polygon) == nil)
        #expect(convert(&f, #"{"type":"region.condition","version":1,"producer":"fences","seq":4,"time":"2010-08-05T14:23:59.250Z","payload":{"region":"car-park","monitor":"fences","removed":true}}"#) == nil)
        // A hostile publisher's definition far out of range converts to nothing.
        #expect(convert(&f, #"{"type":"region.condition","version":1,"producer":"x","seq":1,"time":"2010-08-05T14:23:59.250Z","payload":{"region":"r","monitor":"x","removed":false,"geometry":{"coordinates":[500,2],"type":"Point"},"radius":1e300}}"#) == nil)
    }

    @Test func eventsWithoutAnOwnTracksFormAreNotConverted() {
        var f = OwnTracksFormat(trackerId: "p1", unknownAccuracy: 100)
        #expect(convert(&f, #"{"type":"region.dwell","version":1,"producer":"fences","seq":3,"time":"2005-05-01T10:15:02.000Z","payload":{"region":"office"}}"#) == nil)
        #expect(convert(&f, #"{"type":"visit.arrival","version":1,"producer":"v","seq":1,"time":"2005-05-01T10:15:02.000Z","payload":{}}"#) == nil)
        #expect(convert(&f, "not json") == nil)
        // Found by the mqtt fuzz target: an outside publisher's location with a longitude out of
        // range became an OwnTracks message no consumer accepts; huge numbers would trap in Int(_:).
        #expect(convert(&f, #"{"type":"location.update","version":1,"producer":"x","seq":1,"time":"2010-08-05T14:23:59.250Z","payload":{"lat":45.7,"lon":149357659249}}"#) == nil)
        let huge = convert(&f, #"{"type":"location.update","version":1,"producer":"x","seq":1,"time":"2010-08-05T14:23:59.250Z","payload":{"lat":45.7,"lon":14.3,"alt_msl":1e300,"speed":-3,"h_accuracy":1e300}}"#)
        #expect(convert(&f, #"{"type":"location.update","version":1,"producer":"x","seq":1,"time":"1005-08-05T14:23:59.250Z","payload":{"lat":45.7,"lon":14.3}}"#) == nil)
        let high = convert(&f, #"{"type":"location.update","version":1,"producer":"x","seq":1,"time":"2010-08-05T14:23:59.250Z","payload":{"lat":45.7,"lon":14.3,"alt_msl":5477777.7}}"#)
        #expect(high != nil && high?["alt"] == nil)
        #expect(huge?["alt"] == nil && huge?["vel"] == nil && huge?["acc"] as? Int == 100)
    }
}

import Foundation
import Testing
@testable import LocusCore

struct PrecisionReductionTests {
    let km = PrecisionReduction(metres: 1000)!

    @Test func snapsToCellCentresThatStayPut() {
        // Every point of a cell lands on the same centre, and a centre maps to itself.
        let a = km.snap(lat: 45.7702, lon: 14.3564)
        let b = km.snap(lat: 45.7702 + 0.0001, lon: 14.3564 + 0.0001)
        #expect(a == b)
        #expect(km.snap(lat: a.lat, lon: a.lon) == a)
        // Within half a cell diagonal of the truth, never more.
        let d = Geodesic.approximateDistance(from: Coordinate(latitude: 45.7702, longitude: 14.3564),
                                           to: Coordinate(latitude: a.lat, longitude: a.lon))
        #expect(d <= 1000 * 0.5 * 2.0.squareRoot() + 1)
        // Near the poles and across the antimeridian the result is still a coordinate.
        let pole = km.snap(lat: 89.9999, lon: 179.9999)
        #expect(pole.lat <= 90 && pole.lon < 180 && pole.lon >= -180)
        // Found by the envelope fuzz target: a longitude out of range (the hub forwards it) gave
        // a "centre" that snapped elsewhere when snapped again.
        for lon in [34414.44, 539.9999, -181.5, 179.99999] {
            let once = km.snap(lat: 45.77, lon: lon)
            #expect(once.lon >= -180 && once.lon < 180)
            #expect(km.snap(lat: once.lat, lon: once.lon) == once, "\(lon)")
        }
        #expect(PrecisionReduction(metres: 0) == nil && PrecisionReduction(metres: .nan) == nil)
    }

    @Test func reducesAFixAndKeepsItsHeader() throws {
        let body = Array(#"{"type":"obs.fix","version":1,"producer":"gps0","seq":7,"time":"2024-05-17T08:00:00.000Z","payload":{"source":"gps0","mode":"3d","lat":45.7702123,"lon":14.3564456,"alt_msl":512.3,"speed":1.5,"course":90,"h_accuracy":3.5,"v_accuracy":5,"hdop":0.9}}"#.utf8)
        let reduced = try #require(km.reduce(envelope: body))
        let text = String(decoding: reduced, as: UTF8.self)
        #expect(text.hasPrefix(#"{"type":"obs.fix","version":1,"producer":"gps0","seq":7,"time":"2024-05-17T08:00:00.000Z","payload":{"#))
        let payload = try #require(JSONValue.decode(reduced)["payload"])
        let snapped = km.snap(lat: 45.7702123, lon: 14.3564456)
        #expect(payload["lat"]?.doubleValue == snapped.lat && payload["lon"]?.doubleValue == snapped.lon)
        #expect(payload["h_accuracy"]?.doubleValue == 1000)
        for key in ["speed", "course", "alt_msl", "v_accuracy"] { #expect(payload[key] == nil, "\(key)") }
        #expect(payload["hdop"]?.doubleValue == 0.9 && payload["source"]?.stringValue == "gps0")
    }

    @Test func roundsDistancesAndHandlesOddEnvelopes() throws {
        let region = km.reduce(["region": .string("home"), "distance": .number(1742.2), "lat": .number(1), "lon": .number(2)])
        #expect(region["distance"]?.doubleValue == 2000)
        #expect(region["h_accuracy"]?.doubleValue == 1000)
        // Payload not last: decoded and written again, still reduced.
        let odd = Array(#"{"payload":{"lat":45.1,"lon":14.2,"speed":3},"type":"obs.fix","version":1,"producer":"p","seq":1,"time":"2024-05-17T08:00:00Z"}"#.utf8)
        let reduced = try #require(km.reduce(envelope: odd))
        #expect(try JSONValue.decode(reduced)["payload"]?["speed"] == nil)
        // A nested "payload" key cannot fool the fast path into keeping the speed.
        let nested = Array(#"{"type":"region.enter","version":1,"producer":"p","seq":1,"time":"2024-05-17T08:00:00.000Z","payload":{"speed":3,"properties":{"payload":{"a":1}}}}"#.utf8)
        let n = try #require(km.reduce(envelope: nested))
        #expect(try JSONValue.decode(n)["payload"]?["speed"] == nil)
        #expect(km.reduce(envelope: Array("not json".utf8)) == nil)
        #expect(km.reduce(envelope: Array(#"{"payload":3}"#.utf8)) == nil)
    }
}

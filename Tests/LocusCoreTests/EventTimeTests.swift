import Testing
@testable import LocusCore

@Suite struct EventTimeTests {
    @Test(arguments: [
        ("1970-01-01T00:00:00.000Z", Int64(0)),
        ("2024-05-17T08:00:00.100Z", Int64(1_715_932_800_100)),
        ("2000-02-29T23:59:59.999Z", Int64(951_868_799_999)),
        ("1969-12-31T23:59:59.000Z", Int64(-1000)),
    ])
    func formatsAndParses(text: String, millis: Int64) throws {
        #expect(EventTime(milliseconds: millis).iso8601 == text)
        #expect(EventTime(iso8601: text)?.milliseconds == millis)
    }

    @Test func parsesOffsetsAndFractions() {
        #expect(EventTime(iso8601: "2024-05-17T10:00:00+02:00")?.milliseconds == 1_715_932_800_000)
        #expect(EventTime(iso8601: "2024-05-17T08:00:00.123456Z")?.milliseconds == 1_715_932_800_123)
        #expect(EventTime(iso8601: "2024-05-17T08:00:00.1Z")?.milliseconds == 1_715_932_800_100)
    }

    @Test(arguments: ["", "2024-05-17", "2024-13-01T00:00:00Z", "2023-02-29T00:00:00Z", "2024-05-17T08:00:00", "2024-05-17T08:00:00Zjunk"])
    func rejects(text: String) {
        #expect(EventTime(iso8601: text) == nil)
    }
}

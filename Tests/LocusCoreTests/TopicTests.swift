import Testing
import LocusCore

@Suite struct TopicTests {
    @Test(arguments: ["obs.fix.gps0", "region.enter.home-1", "clock.tick", "status.gps_0", "a"])
    func accepts(topic: String) { #expect(Topic.isValid(topic)) }

    @Test(arguments: ["", "Obs.fix", "obs..fix", ".obs", "obs.", "obs fix", "obs.fix/1", "é", String(repeating: "a", count: 256)])
    func rejects(topic: String) { #expect(!Topic.isValid(topic)) }

    @Test func prefixes() {
        #expect(Topic.isValidPrefix(""))
        #expect(Topic.isValidPrefix("obs."))
        #expect(Topic.isValidPrefix("obs.fix"))
        #expect(!Topic.isValidPrefix("obs.."))
        #expect(!Topic.isValidPrefix("OBS."))
        #expect(Topic.prefix("obs.fix.gps0", canMatch: "obs."))
        #expect(Topic.prefix("obs.", canMatch: "obs.fix.gps0"))
        #expect(!Topic.prefix("region.", canMatch: "obs."))
    }
}

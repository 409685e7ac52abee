import LocusCore
@testable import LocusNATSPlugin
import LocusTestKit
import Testing

/// What `locus check` says about `nats` entries: a key of the other kind is refused where it is
/// written, and a group needs its partition token in the filter.
@Suite struct NATSConfigurationTests {
    @Test func aKeyOfTheOtherKindIsRefusedWhereItIsWritten() throws {
        let sink = try ConfigCheck.errors("sinks:\n  - {type: nats, id: out, group: fleet}\n", plugins: [NATSPlugin.factory], servicesOnly: false)
        #expect(sink.count == 1 && sink[0].contains("'group' is a key of nats sources, not of nats sinks"), "\(sink)")
        let source = try ConfigCheck.errors("sources:\n  - {type: nats, id: in, subject_prefix: x}\n", plugins: [NATSPlugin.factory], servicesOnly: false)
        #expect(source.count == 1 && source[0].contains("'subject_prefix' is a key of nats sinks, not of nats sources"), "\(source)")
        #expect(try ConfigCheck.errors("sources:\n  - {type: nats, id: in}\nsinks:\n  - {type: nats, id: out}\n",
                                       plugins: [NATSPlugin.factory], servicesOnly: false).isEmpty)
    }

    @Test func aGroupNeedsAWildcardWhereThePartitionIs() {
        #expect(configErrorKey(NATSSourceConfiguration.self, #"{"group": "fleet", "filter": "locus.fixes.>"}"#) == "partition_token")
        #expect(configErrorKey(NATSSourceConfiguration.self, #"{"group": "fleet", "filter": "locus.fixes.*.>", "partition_token": 2}"#) == nil)
        #expect(configErrorKey(NATSSourceConfiguration.self, #"{"group": "a.b", "filter": "locus.fixes.*.>"}"#) == "group")
        #expect(configErrorKey(NATSSourceConfiguration.self, #"{"filter": "locus.>.x"}"#) == "filter")
        #expect(configErrorKey(NATSSinkConfiguration.self, #"{"subject_prefix": "locus..events"}"#) == "subject_prefix")
        #expect(configErrorKey(NATSSinkConfiguration.self, #"{"servers": ["127.0.0.1:4222"]}"#) == "servers")
        let config = NATSSourceConfiguration.with { $0.filter = "locus.fixes.*.>"; $0.partitionToken = 2 }
        #expect(config.filter(partition: 17) == "locus.fixes.17.>")
    }
}

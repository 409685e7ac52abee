import LocusConditions
import LocusCore
import Testing

/// The commands region and beacon share (`ConditionCommands`): each refusal word for word as
/// each service gave it before they shared it (control clients and docs quote them), and the
/// replies' shape.
@Suite struct ConditionCommandsTests {
    static let region = ConditionCommands(kind: "region", noun: "region", configKey: "regions", service: "fences", perDevice: false)
    static let beacon = ConditionCommands(kind: "beacon", noun: "beacon condition", configKey: "conditions", service: "beacons", perDevice: false)
    static let regionPerDevice = ConditionCommands(kind: "region", noun: "region", configKey: "regions", service: "fleet", perDevice: true)

    /// An object of strings (and numbers).
    static func object(_ strings: [String: String], numbers: [String: Double] = [:]) -> JSONValue {
        .object(strings.mapValues { .string($0) }.merging(numbers.mapValues { .number($0) }) { a, _ in a })
    }

    func refusal(_ body: () throws -> Void) -> String? {
        do { try body() } catch let e as ServiceCommandError { return e.description } catch { return "\(error)" }
        return nil
    }

    @Test func refusalsKeepEachKindsWording() {
        let r = Self.region, b = Self.beacon
        #expect(refusal { _ = try r.id([:]) } == "missing id=<region id>")
        #expect(refusal { _ = try b.id([:]) } == "missing id=<condition id>")
        #expect(refusal { _ = try b.id(["id": .string("lab"), "x": .number(1)]) } == "unknown argument 'x'; only id is taken")
        #expect(refusal { try r.requireRuntime("home", origin: .config, action: "change") }
                == "region 'home' is defined in config (regions:); change it there")
        #expect(refusal { try r.requireRuntime("home", origin: .file, action: "remove") }
                == "region 'home' is defined in the region file; remove it there")
        #expect(refusal { try b.requireRuntime("desk", origin: .config, action: "remove") }
                == "beacon condition 'desk' is defined in config (conditions:); remove it there")
        #expect(refusal { try b.requireRuntime("desk", origin: .runtime, action: "remove") } == nil)
        #expect(r.unknown("x").description == "no region 'x'; see locus ctl region list")
        #expect(b.unknown("x").description == "no beacon condition 'x'; see locus ctl beacon list")
        #expect(b.notAnswered("beacon.dance").description == "beacon service does not answer 'beacon.dance'")
        #expect(refusal { _ = try r.listQuery(["state": .string("inside")]) } == "state must be unknown, satisfied or unsatisfied")
        #expect(refusal { _ = try r.listQuery(["limit": .number(-1)]) } == "limit must be a whole number ≥ 0")
        #expect(refusal { _ = try r.listQuery(["limit": .number(1.5)]) } == "limit must be a whole number ≥ 0")
        #expect(refusal { _ = try b.listQuery(["z": .number(1), "a": .number(2)]) } == "unknown argument 'a'; beacon list takes state and limit")
        #expect(refusal { _ = try r.listQuery(["device": .string("van")]) }
                == "device= is for a service with per_device: true; 'fences' watches one device")
        let p = Self.regionPerDevice
        #expect(refusal { _ = try p.listQuery(["z": .number(1)]) } == "unknown argument 'z'; region list takes state and limit (and device)")
        #expect(refusal { _ = try p.listQuery(["state": .string("satisfied")]) } == "'fleet' keeps one state per device: state= needs device=…")
        #expect(refusal { _ = try r.devicesLimit([:]) } == "'fences' watches one device (per_device is off)")
        // An unknown key is named before a bad limit, whatever the dictionary's order.
        #expect(refusal { _ = try p.devicesLimit(["limit": .number(-1), "all": .bool(true)]) } == "unknown argument 'all'; region devices takes limit")
        #expect(refusal { _ = try p.devicesLimit(["limit": .number(-1)]) } == "limit must be a whole number ≥ 0")
    }

    @Test func listFiltersLimitsAndCountsEveryMatch() throws {
        let states: [String: ConditionState] = ["a": .satisfied, "b": .unsatisfied, "c": .satisfied, "d": .satisfied]
        let row: (String) -> (origin: ConditionOrigin, state: ConditionState)? = { id in
            id == "d" ? nil : (id == "a" ? .config : .runtime, states[id]!)
        }
        let query = try Self.region.listQuery(["state": .string("satisfied"), "limit": .number(1)])
        let reply = Self.region.listReply(query, ids: ["a", "b", "c", "d"], arrayKey: "regions", countKey: "devices_inside", counts: [:], row: row)
        #expect(reply == .object(["count": .number(2), "truncated": .bool(true),
                                  "regions": .array([Self.object(["id": "a", "origin": "config", "state": "satisfied"])])]))
        // Per device with no device named: the number of devices instead of a state.
        let summary = try Self.regionPerDevice.listQuery([:])
        #expect(summary.summary && summary.limit == 1000 && summary.device == "")
        let counted = Self.regionPerDevice.listReply(summary, ids: ["a", "b"], arrayKey: "regions", countKey: "devices_inside",
                                                      counts: ["a": 3], row: row)
        #expect(counted == .object(["count": .number(2), "truncated": .bool(false), "regions": .array([
            Self.object(["id": "a", "origin": "config"], numbers: ["devices_inside": 3]),
            Self.object(["id": "b", "origin": "runtime"], numbers: ["devices_inside": 0]),
        ])]))
    }

    @Test func recordShowsTheDefinitionAndPerDeviceTheDeviceOrTheDeviceCount() {
        let definition = Self.object(["id": "home"])
        let record = Self.object(["state": "satisfied"])
        #expect(Self.region.recordReply(definition: definition, device: "", devices: 0, record: record)
                == .object(["definition": definition, "monitor": .string("fences"), "state": .string("satisfied")]))
        #expect(Self.regionPerDevice.recordReply(definition: definition, device: "", devices: 4, record: record)
                == .object(["definition": definition, "monitor": .string("fleet"), "devices": .number(4)]))
        #expect(Self.regionPerDevice.recordReply(definition: definition, device: "van", devices: 4, record: record)
                == .object(["definition": definition, "monitor": .string("fleet"), "device": .string("van"), "state": .string("satisfied")]))
        let devices = ConditionCommands.devicesReply(["a", "b", "c"], limit: 2) { .string($0) }
        #expect(devices == .object(["count": .number(3), "devices": .array([.string("a"), .string("b")]), "truncated": .bool(true)]))
    }
}

import LocusCore
import LocusRegionPlugin

/// libFuzzer's per-input callback: the input as the bytes of a region service's watched GeoJSON
/// `file:` (the runtime reads them; `FileFedService`), handed over as the runtime does: at the
/// build (`loadFile`, a refusal is a config error) and as a change while the service runs
/// (`fileChanged`, a refusal keeps the previous conditions).
/// Invariants: neither traps; both accept or refuse the same bytes, and accepted ones give the
/// same conditions either way, with the inline `home` kept; a refused change changes no condition
/// and is counted in `file_reload_failures`; fixes at each accepted condition's corners and centre
/// then go through without a trap, with at most one transition per condition per fix.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))

    // At the build.
    var built = makeService()
    let loaded: [String]?
    do {
        try built.loadFile(file, contents: bytes)
        var output = ServiceOutput()
        try! built.receive(tick(at: 0), output: &output)
        loaded = built.conditionIDs
    } catch {
        loaded = nil
    }
    if let loaded { precondition(loaded.contains("home"), "invariant broken: the inline condition is gone: \(loaded)") }

    // As a change, to a service that loaded a valid file first.
    var running = makeService()
    try! running.loadFile(file, contents: Array(#"{"type":"FeatureCollection","features":[{"type":"Feature","id":"before","properties":{"radius":50},"geometry":{"type":"Point","coordinates":[14.36,45.77]}}]}"#.utf8))
    var output = ServiceOutput()
    try! running.receive(tick(at: 0), output: &output)
    let before = running.conditionIDs
    try! running.fileChanged(file, contents: .success(bytes), output: &output)
    if let loaded {
        precondition(running.conditionIDs == loaded, "invariant broken: the change gave \(running.conditionIDs), the build \(loaded)")
        precondition(running.counters.fileReloadFailures == 0, "invariant broken: accepted at the build, refused as a change")
    } else {
        precondition(running.conditionIDs == before, "invariant broken: a refused change changed the conditions to \(running.conditionIDs)")
        precondition(running.counters.fileReloadFailures == 1, "invariant broken: a refused change not counted")
        return 0
    }

    // Fixes at each condition's box corners and centre (the first 16 conditions).
    var t = 1.0
    for id in running.conditionIDs.prefix(16) {
        guard let box = running.condition(id)?.shape.boundingBox else { continue }
        let points = [(box.minLatitude, box.minLongitude), (box.maxLatitude, box.maxLongitude),
                      ((box.minLatitude + box.maxLatitude) / 2, (box.minLongitude + box.maxLongitude) / 2)]
        for (lat, lon) in points {
            var out = ServiceOutput()
            try! running.receive(fix(lat, lon, at: t), output: &out)
            precondition(out.events.count <= 2 * running.conditionIDs.count + 1, "invariant broken: \(out.events.count) events for one fix")
            t += 10
        }
    }
    return 0
}

let file = WatchedFile(path: "/fuzz/regions.geojson", configKey: "file", checkInterval: 2)

func makeService() -> RegionService {
    let home = try! RegionCondition(id: "home", center: Coordinate(latitude: 45.77, longitude: 14.35), radius: 100, origin: .config)
    let setup = PluginSetup(id: "fences", kind: .service, configDirectory: "", endpoints: HubEndpoints(ingest: "", publish: "", control: ""),
                            logger: .init(label: "fuzz"))
    var configuration = RegionConfiguration.with { $0.regions = [home] }
    configuration.file = file.path
    configuration.minDuration = 0
    return try! RegionService(id: "fences", configuration: configuration, setup: setup)
}

func tick(at seconds: Double) -> BusMessage {
    BusMessage(topic: "clock.tick", envelope: Envelope(producer: "clock", seq: 1, time: EventTime(seconds: seconds),
                                                       payload: ClockTick(basis: .recorded, interval: 1)))
}

func fix(_ latitude: Double, _ longitude: Double, at seconds: Double) -> BusMessage {
    let f = Fix(source: "gps0", mode: .threeD, latitude: latitude, longitude: longitude, altitudeMSL: 500, horizontalAccuracy: 5)
    return BusMessage(topic: "obs.fix.gps0", envelope: Envelope(producer: "gps0", seq: 1, time: EventTime(seconds: seconds), payload: f))
}

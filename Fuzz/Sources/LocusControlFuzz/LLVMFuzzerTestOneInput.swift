import LocusBus
import LocusCore
import LocusRegionPlugin

/// libFuzzer's per-input callback: the input as one control request (docs/protocol.md 8),
/// through what the daemon does with it — the control socket's JSON text check, the request
/// decoding, and for `region.*` commands the region service's command handler on a service
/// holding one region. Invariant: a refused command changes nothing (the region list is the
/// same before and after a command that throws).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size <= 1 << 20 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard ControlReply.isJSONText(bytes), let request = try? JSONValue.decode(bytes),
          let command = request["command"]?.stringValue else { return 0 }
    guard var service = try? RegionService(id: "fences", configuration: RegionConfiguration.with { $0.persist = false }) else {
        preconditionFailure("invariant broken: the region service did not start")
    }
    var output = ServiceOutput()
    let home = JSONValue.object(["id": .string("home"), "center": .object(["lat": .number(45.77), "lon": .number(14.35)]),
                                 "radius": .number(100)])
    _ = try? service.handle(command: "region.add", arguments: home, output: &output)
    func list() -> [UInt8] {
        var o = ServiceOutput()
        return ((try? service.handle(command: "region.list", arguments: .object([:]), output: &o)) ?? .null).encoded()
    }
    let before = list()
    do {
        _ = try service.handle(command: command, arguments: request["args"] ?? .object([:]), output: &output)
    } catch {
        precondition(list() == before, "invariant broken: a refused command changed the regions")
    }
    return 0
}

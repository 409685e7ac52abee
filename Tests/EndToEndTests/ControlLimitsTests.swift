import Foundation
import Testing

/// The control socket of a real `locus run` under a command too large to take: refused before
/// anything changes, and nobody else kept waiting.
@Suite(.serialized) struct ControlLimitsTests {
    @Test func aHugePolygonIsRefusedUnchangedWhileStatusStaysResponsive() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try RegionControlTests.config(dir).write(toFile: dir + "/config.yaml", atomically: true, encoding: .utf8)
        let env = ["LOCUS_RUNTIME_DIR": dir, "LOCUS_STATE_DIR": dir]
        let daemon = try ChildProcess(E2E.binary, ["run", dir + "/config.yaml"], directory: dir, environment: env)
        defer { daemon.kill9() }
        #expect(await waitUntil(timeout: 20) { FileManager.default.fileExists(atPath: dir + "/control.sock") }, "\(daemon.stderr)")
        try await Task.sleep(nanoseconds: 500_000_000)

        // 200,000 vertices around a circle: ~6 MB of GeoJSON. Before: `ok: false` ("not
        // answered within 10 s") and yet the region was committed.
        var ring: [String] = []
        for i in 0..<200_000 {
            let a = Double(i) / 200_000 * 2 * Double.pi
            ring.append("[\(14.3564 + 0.01 * cos(a)),\(45.7702 + 0.01 * sin(a))]")
        }
        ring.append(ring[0])
        let shape = dir + "/huge.json"
        try #"{"type":"Polygon","coordinates":[["# .appending(ring.joined(separator: ",")).appending("]]}")
            .write(toFile: shape, atomically: true, encoding: .utf8)
        async let add = RegionControlTests.ctl(dir, ["region", "add", "id=huge", "geometry=@\(shape)"])
        // Meanwhile, status answers at once.
        let started = Date()
        let status = try await runToEnd(E2E.binary, ["ctl", "status", "--json"], directory: dir, environment: env, timeout: 10)
        #expect(status.status == 0, "\(status.stderr)")
        #expect(Date().timeIntervalSince(started) < 3, "status waited \(Date().timeIntervalSince(started)) s")
        let reply = try await add
        #expect(reply.status == 1, "\(reply.stdout)\(reply.stderr)")
        #expect((reply.stdout + reply.stderr).contains("over the control socket's limit"), "\(reply.stdout)\(reply.stderr)")
        #expect(!(try await RegionControlTests.listedIDs(dir)).contains("huge"), "a refused command changed nothing")
        let counted = try await runToEnd(E2E.binary, ["ctl", "status", "--json"], directory: dir, environment: env, timeout: 10)
        #expect(counted.stdout.contains(#""too_large" : 1"#) || counted.stdout.contains(#""too_large":1"#), "\(counted.stdout)")
        #expect(await daemon.terminate().status == 0)
    }
}

import Foundation
import LocusCore
import Testing
@testable import LocusRuntime

/// How `locus ctl` turns its command line into a request.
@Suite("Control request from the command line")
struct ControlRequestTests {
    struct NoFiles: Error {}
    func parse(_ line: String, files: [String: String] = [:]) throws -> ControlRequest {
        try ControlRequest(words: line.split(separator: " ").map(String.init)) { path in
            guard let text = files[path] else { throw NoFiles() }
            return Array(text.utf8)
        }
    }

    @Test(arguments: [
        ("status", "status"),
        ("help", "help"),
        ("region add id=x", "region.add"),
        ("region.add id=x", "region.add"),
        ("region list", "region.list"),
        ("region record id=home", "region.record"),
        ("a.b c d k=1", "a.b.c.d"),
    ])
    func leadingWordsJoinIntoADottedCommand(line: String, command: String) throws {
        #expect(try parse(line).command == command)
    }

    @Test func valuesThatParseAsJSONAreSentAsJSON() throws {
        let r = try parse(#"region add id=home lat=52.5 lon=13.4 radius=150 on=true tags=["a","b"] at={"x":[1,{"y":null}]} name=Home"#)
        #expect(r.command == "region.add")
        #expect(r.arguments == [
            "id": .string("home"), "lat": .number(52.5), "lon": .number(13.4), "radius": .number(150),
            "on": .bool(true), "tags": .array([.string("a"), .string("b")]),
            "at": .object(["x": .array([.number(1), .object(["y": .null])])]), "name": .string("Home"),
        ])
        #expect(try parse(#"region add id="42""#).arguments["id"] == .string("42"))
        #expect(try parse("region add note=a=b").arguments["note"] == .string("a=b"))
        #expect(try parse("region add note=").arguments["note"] == .string(""))
    }

    @Test func atFileReadsTheFileAsJSONOrText() throws {
        let shape = """
            {"type": "Polygon", "coordinates": [[[13.4, 52.5], [13.5, 52.5], [13.5, 52.6], [13.4, 52.5]]]}

            """
        let r = try parse("region add id=park geometry=@shape.json note=@note.txt raw=@@home",
                          files: ["shape.json": shape, "note.txt": "by the lake\n"])
        #expect(r.arguments["geometry"] == .object([
            "type": .string("Polygon"),
            "coordinates": .array([.array([
                .array([.number(13.4), .number(52.5)]), .array([.number(13.5), .number(52.5)]),
                .array([.number(13.5), .number(52.6)]), .array([.number(13.4), .number(52.5)]),
            ])]),
        ]))
        #expect(r.arguments["note"] == .string("by the lake"))
        #expect(r.arguments["raw"] == .string("@home"))
    }

    @Test func atFileWithTheRealFileSystem() throws {
        let path = "/tmp/lrt-ctl-\(UUID().uuidString.prefix(8)).json"
        try Data(#"{"type":"Point","coordinates":[13.4,52.5]}"#.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = try ControlRequest(words: ["region", "add", "id=p", "geometry=@\(path)"])
        #expect(r.arguments["geometry"]?["type"] == .string("Point"))
        let missing = #expect(throws: ControlRequestError.self) {
            try ControlRequest(words: ["region", "add", "geometry=@/nonexistent/shape.json"])
        }
        #expect(missing?.description == "cannot read '/nonexistent/shape.json' for argument 'geometry': no such file")
    }

    @Test(arguments: [
        ("region add id=x extra", "argument 'extra' is not key=value (command words come first)"),
        ("id=x", "no command given: try `locus ctl help`"),
        ("region add =x", "argument '=x' has no key before '='"),
        ("region add id=x id=y", "argument 'id' is given twice"),
        ("region..add", "command 'region..add' has an empty word"),
        ("region add g=@", "argument 'g=@' names no file"),
        ("region add g=@missing.json", "cannot read 'missing.json' for argument 'g': NoFiles()"),
    ])
    func linesThatMakeNoRequestSaySo(line: String, message: String) {
        let error = #expect(throws: ControlRequestError.self) { try parse(line) }
        #expect(error?.description == message)
    }

    @Test func encodesTheRequestTheDaemonReads() throws {
        let r = try parse("region remove id=home")
        let decoded = try JSONValue.decode(r.encoded)
        #expect(decoded == .object(["command": .string("region.remove"), "args": .object(["id": .string("home")])]))
    }
}

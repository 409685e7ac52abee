import Foundation
import LocusCore

/// A control request as `locus ctl` builds it from its command line.
///
/// Leading words without `=` join into a dotted command name, the rest are `key=value`
/// arguments: `region add id=home radius=150` is `{"command": "region.add", "args": {"id":
/// "home", "radius": 150}}`. A value that parses as JSON (a number, `true`, `[1,2]`, `{"a":1}`)
/// is sent as that JSON, anything else as a string; `key=@path` reads the file (JSON if it
/// parses as JSON, else its text without a trailing newline); `key=@@text` is the string `@text`.
public struct ControlRequest: Equatable, Sendable {
    public var command: String
    public var arguments: [String: JSONValue]

    public init(command: String, arguments: [String: JSONValue] = [:]) {
        self.command = command
        self.arguments = arguments
    }

    /// Parses command-line words.
    /// - Parameter readFile: reads the file of a `key=@path` argument.
    /// - Throws: `ControlRequestError` for a missing command, a word that is not `key=value`
    ///   after the first argument, an empty or repeated key, or a file that cannot be read.
    public init(words: [String], readFile: (String) throws -> [UInt8] = ControlRequest.readFile) throws {
        var names: [String] = []
        var arguments: [String: JSONValue] = [:]
        for word in words {
            guard let eq = word.firstIndex(of: "=") else {
                guard arguments.isEmpty else {
                    throw ControlRequestError("argument '\(word)' is not key=value (command words come first)")
                }
                names.append(contentsOf: word.split(separator: ".", omittingEmptySubsequences: false).map(String.init))
                continue
            }
            let key = String(word[..<eq])
            let raw = String(word[word.index(after: eq)...])
            guard !key.isEmpty else { throw ControlRequestError("argument '\(word)' has no key before '='") }
            guard arguments[key] == nil else { throw ControlRequestError("argument '\(key)' is given twice") }
            arguments[key] = try Self.value(raw, key: key, readFile: readFile)
        }
        guard !names.isEmpty else { throw ControlRequestError("no command given: try `locus ctl help`") }
        guard names.allSatisfy({ !$0.isEmpty }) else {
            throw ControlRequestError("command '\(names.joined(separator: "."))' has an empty word")
        }
        self.init(command: names.joined(separator: "."), arguments: arguments)
    }

    /// `{"command": "…", "args": {…}}` as bytes.
    public var encoded: [UInt8] {
        JSONValue.object(["command": .string(command), "args": .object(arguments)]).encoded()
    }

    static func value(_ raw: String, key: String, readFile: (String) throws -> [UInt8]) throws -> JSONValue {
        if raw.hasPrefix("@@") { return .string(String(raw.dropFirst())) }
        if raw.hasPrefix("@") {
            let path = String(raw.dropFirst())
            guard !path.isEmpty else { throw ControlRequestError("argument '\(key)=@' names no file") }
            let bytes: [UInt8]
            do {
                bytes = try readFile(path)
            } catch {
                throw ControlRequestError("cannot read '\(path)' for argument '\(key)': \(error)")
            }
            if let json = try? JSONValue.decode(bytes) { return json }
            var text = String(decoding: bytes, as: UTF8.self)
            if text.hasSuffix("\n") { text.removeLast() }  // "\r\n" is one Character
            return .string(text)
        }
        return (try? JSONValue.decode(Array(raw.utf8))) ?? .string(raw)
    }

    /// Reads a whole file, naming it in the error.
    public static func readFile(_ path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ControlRequestError(FileManager.default.fileExists(atPath: path)
                                      ? "it is not readable" : "no such file")
        }
        return [UInt8](data)
    }
}

/// A `locus ctl` command line that does not make a request.
public struct ControlRequestError: Error, CustomStringConvertible, Sendable, Equatable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

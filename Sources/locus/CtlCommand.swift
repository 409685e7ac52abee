import ArgumentParser
import Foundation
import LocusBus
import LocusCore

struct CtlCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ctl",
        abstract: "Send a command to a running `locus run` over its control socket.",
        discussion: """
        Commands: status (hub counters, plugin states), plugins (configured plugins), help (what \
        the daemon answers; plugins add their own). Arguments are key=value pairs; values that \
        parse as JSON (numbers, true, [..]) are sent as such, others as strings.
        Examples: locus ctl status    locus ctl help
        Exit 0 if the daemon answered ok, 1 if it answered with an error or did not answer.
        """
    )

    @Argument(help: "Command name, e.g. status.")
    var command: String

    @Argument(help: "Arguments as key=value.")
    var arguments: [String] = []

    @Option(name: .shortAndLong, help: "Control endpoint (default: hub.control of ./config.yaml, else the runtime directory's control.sock).")
    var endpoint: String?

    @Option(name: .long, help: "Config file to read the default endpoint from.")
    var config: String?

    @Option(name: .long, help: "Seconds to wait for the reply.")
    var timeout: Double = 3

    @Flag(name: .long, help: "Print the raw JSON reply.")
    var json = false

    func run() async throws {
        var args: [String: JSONValue] = [:]
        for a in arguments {
            guard let eq = a.firstIndex(of: "=") else { throw ValidationError("argument '\(a)' is not key=value") }
            let key = String(a[..<eq])
            let raw = String(a[a.index(after: eq)...])
            args[key] = (try? JSONValue.decode(Array(raw.utf8))) ?? .string(raw)
        }
        let request = JSONValue.object(["command": .string(command), "args": .object(args)]).encoded()
        let target = endpoint ?? ConfigSupport.defaultEndpoints(configPath: config).control
        let reply: [UInt8]
        do {
            reply = try ControlClient.request(request, endpoint: target, timeout: timeout)
        } catch {
            FileHandle.standardError.write(Data("locus ctl: \(error)\n".utf8))
            throw ExitCode(ExitStatus.failure)
        }
        let value = try? JSONValue.decode(reply)
        if json || value == nil {
            print(String(decoding: reply, as: UTF8.self))
        } else if let value {
            if case .bool(true)? = value["ok"] {
                print(Self.pretty(value["result"] ?? .null))
            } else {
                FileHandle.standardError.write(Data("locus ctl: \(value["error"]?.stringValue ?? "error")\n".utf8))
                throw ExitCode(ExitStatus.failure)
            }
        }
    }

    static func pretty(_ v: JSONValue) -> String {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? String(decoding: e.encode(v), as: UTF8.self)) ?? "null"
    }
}

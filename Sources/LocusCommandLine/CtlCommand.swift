import ArgumentParser
import Foundation
import LocusBus
import LocusCore
import LocusRuntime

struct CtlCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ctl",
        abstract: "Send a command to a running `locus run` over its control socket.",
        discussion: """
        Commands: status (hub counters, plugin states), metrics (the same counters as Prometheus \
        text), plugins (configured plugins), help (what \
        the daemon answers, with the commands services add, such as region.add).
        Leading words join into a dotted command name: `locus ctl region add …` sends region.add \
        (`locus ctl region.add …` is the same). Arguments are key=value pairs; values that parse \
        as JSON (numbers, true, [..], {..}) are sent as such, others as strings (quote for the \
        shell to send a number as a string: 'id="42"'). key=@FILE sends the file's contents, as \
        JSON if they parse as JSON, else as a string; key=@@text sends the string @text. When \
        several services answer a command, name one with service=<id>.
        Examples: locus ctl status    locus ctl help
          locus ctl region add id=home lat=52.5 lon=13.4 radius=150
          locus ctl region add id=park geometry=@park.geojson service=fences
          locus ctl region list    locus ctl region remove id=home
        Which daemon, without --endpoint: the hub.control of the config named with --config; \
        else, when LOCUS_RUNTIME_DIR is set, its control.sock (the variable wins over a \
        ./config.yaml in the working directory); else the hub.control of ./config.yaml; else \
        the runtime directory's control.sock.
        Exit 0 if the daemon answered ok, 1 if it answered with an error or did not answer, \
        2 for a command line that makes no request.
        """
    )

    @Argument(help: "Command: words joined with dots (status, region add), then key=value arguments.")
    var command: String

    @Argument(help: "More command words, then arguments as key=value (key=@file reads a file).")
    var arguments: [String] = []

    @Option(name: .shortAndLong, help: "Control endpoint (default: hub.control of --config; else $LOCUS_RUNTIME_DIR/control.sock when set; else hub.control of ./config.yaml; else the runtime directory's control.sock).")
    var endpoint: String?

    @Option(name: .long, help: "Config file to read the default endpoint from.")
    var config: String?

    /// Longer than the daemon's wait for a busy service (5 s), so its error reply gets here.
    @Option(name: .long, help: "Seconds to wait for the reply.")
    var timeout: Double = 8

    @Flag(name: .long, help: "Print the raw JSON reply.")
    var json = false

    @OptionGroup var keys: CurveClientOptions

    func run() async throws {
        let request: [UInt8]
        do {
            request = try ControlRequest(words: [command] + arguments).encoded
        } catch {
            throw ValidationError("\(error)")
        }
        let target = endpoint ?? ConfigSupport.defaultEndpoints(configPath: config).control
        let curve = try keys.client()
        let reply: [UInt8]
        do {
            reply = try ControlClient.request(request, endpoint: target, timeout: timeout, curve: curve)
        } catch {
            // A CURVE endpoint says nothing to a client without keys: the handshake just fails.
            let hint = curve == nil && target.hasPrefix("tcp://") && error is ControlClientError
                ? " (if the control endpoint uses CURVE, give --server-key and --key)" : ""
            FileHandle.standardError.write(Data("locus ctl: \(error)\(hint)\n".utf8))
            throw ExitCode(ExitStatus.failure)
        }
        let value = try? JSONValue.decode(reply)
        if json || value == nil {
            print(String(decoding: reply, as: UTF8.self))
            // The exit status says whether the daemon answered ok, with --json too.
            if let value, value["ok"] != .bool(true) { throw ExitCode(ExitStatus.failure) }
        } else if let value {
            if case .bool(true)? = value["ok"] {
                if case .string(let text)? = value["result"], command == "metrics" {
                    // The Prometheus text itself, as a scraper would get it.
                    print(text, terminator: "")
                } else {
                    print(Self.pretty(value["result"] ?? .null))
                }
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

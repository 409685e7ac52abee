import ArgumentParser
import Foundation
import LocusCore
import LocusRuntime
import LocusWebPlugin
import Logging

struct ViewCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "view",
        abstract: "Show a recording on the map page: the configured services run over it, and the page draws the fences, the track, visits and every event.",
        discussion: """
        The way to see why a geofence or a visit did (or did not) happen on a recorded track, \
        without a daemon: the recording is played through the config's services exactly as \
        `locus replay` plays it (same events, same times), then the web gateway's map page \
        serves the result on --listen (loopback) until Ctrl-C. Open the printed address in a \
        browser. Without --listen it serves on 127.0.0.1 at port $LOCUS_WEB_PORT, else 8080, \
        and when that port is taken (the demo's map page, another locus view) on a free one. Region services draw their fences whatever their publish_conditions says. \
        Takes the inputs `locus replay` takes (Locus recordings, NMEA, gpsd JSON, GPX).
        """
    )

    @Argument(help: "Recording to show (Locus recording, NMEA, gpsd JSON or GPX).")
    var file: String

    @Option(name: .shortAndLong, help: "Config whose services to run (default ./config.yaml).")
    var config: String = ConfigSupport.defaultPath

    @Option(name: .long, help: "host:port to serve the page on (loopback only); default 127.0.0.1:$LOCUS_WEB_PORT, else 127.0.0.1:8080, or a free port when that one is taken.")
    var listen: String?

    @Option(name: .long, parsing: .upToNextOption, help: "Topic prefixes of the recording to feed in.")
    var topics: [String] = ["obs."]

    @Option(name: .long, help: "Seconds of recorded time between clock ticks.")
    var tickInterval: Double = 1

    @Option(name: .long, help: "Map tiles, such as https://tile.openstreetmap.org/{z}/{x}/{y}.png (default: none, a plain grid).")
    var tileURL: String = ""

    @OptionGroup var inputOptions: RecordingInputOptions

    /// Events kept for the page; a longer recording keeps its last ones (and says so).
    static let maxEvents = 2_000_000

    /// The environment variable that gives the default port (the demo's map page reads it too).
    static let portVariable = "LOCUS_WEB_PORT"

    func validate() throws {
        if let listen {
            switch HTTPAddress.parse(listen, example: "127.0.0.1:8080") {
            case .success(let a) where !a.isLoopback:
                throw ValidationError("--listen \(listen) is not loopback: locus view serves without a token, so only on 127.0.0.1, ::1 or localhost")
            case .failure(let e): throw ValidationError("--listen: \(e.description)")
            default: break
            }
        } else {
            _ = try Self.defaultAddress()
        }
    }

    /// 127.0.0.1 at $LOCUS_WEB_PORT, else at 8080.
    static func defaultAddress(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> HTTPAddress {
        guard let text = environment[portVariable], !text.isEmpty else { return HTTPAddress(host: "127.0.0.1", port: 8080) }
        guard let port = Int(text), (1...65535).contains(port) else {
            throw ValidationError("\(portVariable)=\(text): the port must be 1 to 65535")
        }
        return HTTPAddress(host: "127.0.0.1", port: port)
    }

    func run() async throws {
        LogSetup.bootstrap(level: .warning)
        let logger = Logger(label: "locus.view")
        // Every service that can publish what it watches does, whatever the config says.
        let factories = ActivePlugins.all.map { f -> PluginFactory in
            var drawn = f
            let build = f.build
            drawn.build = { decoder, setup in
                let instance = try build(decoder, setup)
                guard case .service(let s) = instance, var service = s as? any DefinitionPublishingService else { return instance }
                service.publishDefinitions()
                return .service(service)
            }
            return drawn
        }
        let configuration = try ConfigSupport.load(config, mode: .servicesOnly, factories: factories, logger: logger)
        var pipeline = OfflinePipeline(configuration: configuration, registry: ConfigSupport.registry, logger: logger)
        var lines: [(topic: String, body: [UInt8])] = []
        var dropped = 0
        // The recording's span, for the page ("recording <from> – <to>", not "live"): the
        // earliest and latest event time, as a recording's time may step back.
        var span: ClosedRange<EventTime>?
        do {
            try RecordingPlayback(file: file, topics: topics, tickInterval: tickInterval, includeInput: true,
                                  inputOptions: inputOptions).play(into: &pipeline) { line in
                guard let (topic, body) = try? RecordingLine.split(Array(line.dropLast())), !topic.hasPrefix("clock.") else { return }
                lines.append((topic, body))
                if let t = try? EnvelopeCodec.decode(body, registry: ConfigSupport.registry).time {
                    span = span.map { min($0.lowerBound, t)...max($0.upperBound, t) } ?? t...t
                }
                if lines.count > Self.maxEvents {
                    lines.removeFirst(lines.count - Self.maxEvents / 2)
                    dropped += Self.maxEvents / 2
                }
            }
        } catch {
            FileHandle.standardError.write(Data("locus view: \(error)\n".utf8))
            throw ExitCode(ExitStatus.failure)
        }
        if dropped > 0 {
            FileHandle.standardError.write(Data("locus view: the recording gave more than \(Self.maxEvents) events; the first \(dropped) are not shown\n".utf8))
        }
        var web = WebConfiguration()
        web.title = "locus view: " + (file as NSString).lastPathComponent
        web.tileURL = tileURL
        web.exclude = ["clock."]
        let feed = EventFeed(historyLimit: max(lines.count, 1), queueLimit: lines.count + 10_000, maxClients: 64)
        for (k, l) in lines.enumerated() { feed.add(FeedItem(id: UInt64(k + 1), topic: l.topic, body: l.body)) }
        let chosen: HTTPAddress
        if let listen {
            guard case .success(let a) = HTTPAddress.parse(listen, example: "127.0.0.1:8080") else { return }
            chosen = a
        } else {
            chosen = try Self.defaultAddress()
        }
        let count = lines.count, file = self.file
        func server(on address: HTTPAddress) -> WebServer {
            let movedBy = listen == nil ? ["set \(Self.portVariable) or --listen"]
                : ["give another --listen (or none: locus view then takes a free port when its own is taken)"]
            return WebServer(configuration: web, address: address, token: nil, feed: feed, journal: nil, logger: logger,
                             mode: .recording(span), movedBy: movedBy) { url in
                print("locus view: \(count) events of \(file) on \(url) (Ctrl-C to stop)")
                StandardOutput.flush()
            }
        }
        do {
            do {
                try await server(on: chosen).run()
            } catch let busy as PortInUse where listen == nil {
                // The default port is taken (the demo's own map page, another locus view): any
                // free port will do, and the address printed says which.
                FileHandle.standardError.write(Data("locus view: \(busy). Serving on a free port instead.\n".utf8))
                try await server(on: HTTPAddress(host: chosen.host, port: 0)).run()
            }
        } catch {
            FileHandle.standardError.write(Data("locus view: \(error)\n".utf8))
            throw ExitCode(ExitStatus.failure)
        }
    }
}

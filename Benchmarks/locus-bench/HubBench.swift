import Foundation
import LocusBus
import LocusCore
import Logging

/// `hub N`: N fix messages from an in-process `SocketOutlet` (inproc into the hub's ingest),
/// through the `Hub`, to a subscriber in a separate process connected over ipc — like
/// zbench's `thr ipc 300 N proxy`: high-water marks 0 so nothing is dropped, the subscriber
/// times first to last message and checks that all N arrived.
///
/// `hub-tcp N` and `hub-curve N`: the same over loopback TCP, plain and with CURVE (the ZAP
/// handler checking the subscriber's key against an authorized_keys directory), for the cost
/// of encryption on hub throughput.
enum HubBench {
    enum Transport: String { case ipc, tcp, curve }

    static func run(count n: Int, validatePayloads: Bool, transport: Transport = .ipc) throws {
        var logger = Logger(label: "locus-bench")
        logger.logLevel = .warning
        let directory = "/tmp/locus-bench-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory + "/clients", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }

        let context = ZMQContext()
        var configuration = HubConfiguration(publishEndpoints: [transport == .ipc ? "ipc://\(directory)/publish.sock" : "tcp://127.0.0.1:*"],
                                             limits: .with { $0.highWaterMark = 0; $0.validatePayloads = validatePayloads })
        var keyArguments: [String] = []
        var zap: ZAPHandler?
        if transport == .curve {
            let server = try CurveKey.keypair(), client = try CurveKey.keypair()
            try CurveCertificate(publicKey: client.publicKey).text(generated: "bench")
                .write(toFile: directory + "/clients/bench.key", atomically: true, encoding: .utf8)
            let handler = ZAPHandler(context: context, logger: logger)
            handler.authorize(domain: "bench", keys: AuthorizedKeys(directory: directory + "/clients"))
            try handler.start()
            zap = handler
            configuration.curve = ["tcp://127.0.0.1:*": CurveServer(secretKey: server.secretKey, domain: "bench")]
            keyArguments = [server.publicKey.z85, client.publicKey.z85, client.secretKey.z85]
        }
        defer { zap?.stop() }
        let hub = Hub(configuration: configuration, registry: .core, context: context, logger: logger)
        try hub.start()
        let endpoint = hub.boundEndpoints.first { !$0.hasPrefix("inproc://") }!
        let outlet = try SocketOutlet(context: context, highWaterMark: 0, logger: logger)
        guard outlet.waitUntilReady(timeout: 5) else { fatalError("the hub did not subscribe to the outlet") }

        let id = UUID().uuidString
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe")
        child.arguments = ["hub-sub", endpoint, String(n), id] + keyArguments
        let output = Pipe()
        child.standardOutput = output
        try child.run()
        guard hub.waitForSubscriber(token: SyncToken.make(id: id), timeout: 10) else {
            child.terminate()
            fatalError("the subscriber process did not subscribe within 10 s")
        }

        let bodies = (0..<1024).map(FixSamples.body)
        let size = bodies[0].count
        let t0 = now()
        for i in 0..<n { outlet.send(topic: FixSamples.topic, body: bodies[i & 1023]) }
        let t1 = now()
        child.waitUntilExit()
        let cpu = ThreadCPU.snapshot()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        outlet.close()
        hub.stop()

        let fields = Dictionary(uniqueKeysWithValues: text.split(separator: " ").compactMap { part -> (String, String)? in
            let kv = part.split(separator: "=", maxSplits: 1)
            return kv.count == 2 ? (String(kv[0]), kv[1].trimmingCharacters(in: .whitespacesAndNewlines)) : nil
        })
        guard let received = fields["received"].flatMap(Int.init), let secs = fields["secs"].flatMap(Double.init) else {
            fatalError("subscriber said: \(text)")
        }
        let stats = hub.statistics
        FileHandle.standardError.write(Data("  queued \(n) in \(String(format: "%.3f", t1 - t0)) s; hub forwarded \(stats.forwarded), dropped \(stats.droppedTotal)\n".utf8))
        FileHandle.standardError.write(Data("  cpu per message: \(cpu.perMessage(n))\n".utf8))
        let label = validatePayloads ? "hub+payload \(transport)" : "hub \(transport)"
        print("\(label) \(size)B: \(rate(received - 1, secs)) msg/s (N=\(n), lost \(n - received))")
    }

    /// The subscriber process: `hub-sub ENDPOINT N ID`. Prints `received=… secs=…`.
    static func subscribe(endpoint: String, count n: Int, id: String, keys: [String] = []) throws {
        let context = ZMQContext()
        let socket = try ZMQSocket(context: context, type: .sub)
        if keys.count == 3, let server = CurveKey(z85: keys[0]), let pub = CurveKey(z85: keys[1]), let sec = CurveKey(z85: keys[2]) {
            try socket.setCurveClient(CurveClient(serverKey: server, publicKey: pub, secretKey: sec))
        }
        try socket.setOption(.receiveHighWaterMark(0))
        try socket.setOption(.receiveTimeout(milliseconds: 100))
        try socket.setOption(.linger(milliseconds: 0))
        try socket.subscribe("obs.fix.")
        try socket.subscribe(SyncToken.make(id: id))
        try socket.connect(endpoint)
        var topic = ZMQMessage()
        var body = ZMQMessage()
        var received = 0
        var first = 0.0
        var last = 0.0
        var idleTurns = 0
        var badSize = 0
        let expected = FixSamples.body(0).count
        while received < n {
            guard try topic.receive(from: socket, dontWait: false) else {
                // Each miss is a 100 ms receive timeout: allow 30 s for the first message
                // (start-up), then 5 s of silence means the rest was lost.
                idleTurns += 1
                if idleTurns > (received == 0 ? 300 : 50) { break }
                continue
            }
            idleTurns = 0
            _ = try body.receive(from: socket, dontWait: false)
            received += 1
            // Reading the clock for every message would cost about as much as receiving it.
            if received == 1 || received == n || received & 255 == 0 {
                last = now()
                if received == 1 { first = last }
            }
            if body.count != expected { badSize += 1 }
        }
        socket.close()
        print("received=\(received) secs=\(last - first) bad_size=\(badSize)")
    }
}

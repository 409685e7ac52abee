/// A listener's port that another process holds, said so that a user can act on it: the port,
/// what probably holds it, the command that shows which program, and what moves it. Every
/// listener of Locus says it this way — the hub's ZeroMQ endpoints, `hub.metrics`, the `web`
/// and `gpsd-server` sinks, `locus view` — so the text is written once, here.
public struct PortInUse: Error, CustomStringConvertible, Sendable, Equatable {
    /// The address as configured: `tcp://127.0.0.1:5556`, `127.0.0.1:8080`.
    public var address: String
    public var port: Int
    /// What usually holds this port when it is not another Locus, when that is known:
    /// `gpsd (systemctl stop gpsd.socket gpsd stops it)`.
    public var usualHolder: String?
    /// What moves the listener to another port, each said as what to do, most direct first:
    /// `set LOCUS_DEMO_PORT (config.yaml reads the port from it)`, `change hub.publish in config.yaml`.
    public var movedBy: [String]

    public init(address: String, port: Int, usualHolder: String? = nil, movedBy: [String]) {
        self.address = address
        self.port = port
        self.usualHolder = usualHolder
        self.movedBy = movedBy
    }

    public var description: String {
        let holders = (usualHolder.map { "\($0), " } ?? "") + "another locus or another program"
        var text = "cannot listen on \(address): port \(port) is in use, probably by \(holders) (`ss -ltnp 'sport = :\(port)'` shows which)"
        if !movedBy.isEmpty { text += "; to use another port, " + movedBy.joined(separator: ", or ") }
        return text
    }

    /// The environment variables a config's text reads that give `port` here: each
    /// `${NAME}` or `${NAME:-default}` whose value now (the variable's, else its default) is
    /// the port, in the order they appear. What a user of a config such as the demo's changes
    /// (`LOCUS_DEMO_PORT=5557 locus run`) rather than the file.
    public static func variables(in configText: String, givingPort port: Int, environment: [String: String]) -> [String] {
        var names: [String] = []
        var rest = Substring(configText)
        while let open = rest.range(of: "${") {
            rest = rest[open.upperBound...]
            guard let close = rest.firstIndex(of: "}") else { break }
            let body = rest[..<close]
            rest = rest[rest.index(after: close)...]
            let name: Substring, fallback: Substring?
            if let sep = body.range(of: ":-") {
                name = body[..<sep.lowerBound]
                fallback = body[sep.upperBound...]
            } else {
                name = body
                fallback = nil
            }
            let set = environment[String(name)].flatMap { $0.isEmpty && fallback != nil ? nil : $0 }
            guard let value = set ?? fallback.map(String.init), Int(value) == port, !names.contains(String(name)) else { continue }
            names.append(String(name))
        }
        return names
    }
}

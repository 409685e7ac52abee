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
}

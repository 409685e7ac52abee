import CSDBus
#if canImport(Glibc)
import Glibc
#endif

/// A client connection to a D-Bus bus through libsystemd's sd-bus.
///
/// sd-bus objects are not thread-safe: a connection and the messages read from it belong to
/// the one thread that opened it (`BLEScanThread`), which calls `process`/`wait` in a loop.
/// Signals are received by adding match rules on the bus daemon (`addMatch`); `process`
/// returns them, together with everything else no callback handled.
final class DBusConnection {
    private var bus: OpaquePointer?

    /// Opens the system bus (`address` nil: `DBUS_SYSTEM_BUS_ADDRESS` or the standard socket),
    /// or the bus at a D-Bus address such as `unix:path=/run/dbus/system_bus_socket`.
    init(address: String?) throws {
        var b: OpaquePointer?
        if let address {
            var rc = sd_bus_new(&b)
            if rc < 0 { throw DBusError("sd_bus_new", returned: rc) }
            rc = sd_bus_set_address(b, address)
            if rc >= 0 { rc = sd_bus_set_bus_client(b, 1) }
            if rc >= 0 { rc = sd_bus_start(b) }
            if rc < 0 {
                sd_bus_unref(b)
                throw DBusError("cannot connect to D-Bus at \(address)", returned: rc)
            }
        } else {
            let rc = sd_bus_open_system(&b)
            if rc < 0 { throw DBusError("cannot connect to the D-Bus system bus", returned: rc) }
        }
        bus = b
    }

    deinit { close() }

    func close() {
        if let b = bus {
            // No flush: nothing queued matters (BlueZ ends a client's discovery when it leaves), and a
            // flush could wait on a stuck peer.
            sd_bus_close_unref(b)
            bus = nil
        }
    }

    var isOpen: Bool { bus.map { sd_bus_is_open($0) > 0 } ?? false }

    /// Calls a method and waits up to `timeout` seconds for the reply. An error reply throws
    /// with its D-Bus name. Signals that arrive meanwhile are queued for `process`.
    @discardableResult
    func call(destination: String, path: String, interface: String, member: String, timeout: Double = 5,
              arguments: [DBusValue] = []) throws -> DBusMessage {
        guard let bus else { throw DBusError(name: nil, message: "connection closed", code: ENOTCONN) }
        var m: OpaquePointer?
        var rc = sd_bus_message_new_method_call(bus, &m, destination, path, interface, member)
        if rc < 0 { throw DBusError("new_method_call \(member)", returned: rc) }
        let request = DBusMessage(owning: m!)
        let writer = DBusMessageWriter(message: request)
        for a in arguments { try writer.append(a) }
        var error = sd_bus_error(name: nil, message: nil, _need_free: 0)
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        rc = sd_bus_call(bus, request.pointer, UInt64(timeout * 1_000_000), &error, &reply)
        if rc < 0 {
            if let name = error.name {
                throw DBusError(name: String(cString: name), message: error.message.map { String(cString: $0) } ?? "", code: -rc)
            }
            throw DBusError("\(interface).\(member) on \(path)", returned: rc)
        }
        return DBusMessage(owning: reply!)
    }

    /// Asks the bus daemon to route signals matching `rule` to this connection.
    func addMatch(_ rule: String) throws {
        try call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                 member: "AddMatch", arguments: [.string(rule)])
    }

    enum Step {
        /// Nothing queued: wait before calling again.
        case idle
        /// sd-bus did some work (or handled a message itself): call again.
        case busy
        case message(DBusMessage)
    }

    /// One step of sd-bus's processing. Throws when the connection has failed or closed.
    func process() throws -> Step {
        guard let bus else { throw DBusError(name: nil, message: "connection closed", code: ENOTCONN) }
        var m: OpaquePointer?
        let rc = sd_bus_process(bus, &m)
        if rc < 0 { throw DBusError("D-Bus connection lost", returned: rc) }
        if let m { return .message(DBusMessage(owning: m)) }
        return rc == 0 ? .idle : .busy
    }

    /// Blocks until something arrives or `timeout` seconds pass.
    func wait(timeout: Double) throws {
        guard let bus else { throw DBusError(name: nil, message: "connection closed", code: ENOTCONN) }
        let rc = sd_bus_wait(bus, UInt64(max(0, timeout) * 1_000_000))
        if rc < 0 && rc != -EINTR { throw DBusError("D-Bus connection lost", returned: rc) }
    }
}

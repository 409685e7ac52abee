/// The D-Bus signals the `ble` source listens to, decoded from their arguments.
enum BlueZSignal: Equatable {
    /// `org.freedesktop.DBus.NameOwnerChanged` for `org.bluez`: an empty owner means bluetoothd
    /// left the bus (stopped or crashed), a new one that it is back.
    case bluezOwnerChanged(newOwner: String)
    /// `org.freedesktop.DBus.ObjectManager.InterfacesAdded` (`oa{sa{sv}}`).
    case interfacesAdded(path: String, interfaces: [String: [String: DBusValue]])
    /// `org.freedesktop.DBus.ObjectManager.InterfacesRemoved` (`oas`).
    case interfacesRemoved(path: String, interfaces: [String])
    /// `org.freedesktop.DBus.Properties.PropertiesChanged` (`sa{sv}as`) on object `path`.
    case propertiesChanged(path: String, interface: String, changed: [String: DBusValue], invalidated: [String])

    static let bluezName = "org.bluez"

    /// Match rules for the bus daemon. `sender='org.bluez'` follows the name to whichever
    /// process owns it, so the rules survive a bluetoothd restart.
    static let matchRules = [
        "type='signal',sender='org.bluez',interface='org.freedesktop.DBus.ObjectManager'",
        "type='signal',sender='org.bluez',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'",
        "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='org.bluez'",
    ]

    /// Decodes a signal; nil for one the source does not use. Throws for arguments of the wrong
    /// types (the caller counts and skips it).
    static func decode(interface: String?, member: String?, path: String?, arguments a: [DBusValue]) throws -> BlueZSignal? {
        switch (interface, member) {
        case ("org.freedesktop.DBus", "NameOwnerChanged"):
            guard a.count == 3, let name = a[0].text, let new = a[2].text else { throw BlueZSignalError.arguments("NameOwnerChanged") }
            return name == bluezName ? .bluezOwnerChanged(newOwner: new) : nil
        case ("org.freedesktop.DBus.ObjectManager", "InterfacesAdded"):
            guard a.count == 2, let p = a[0].text, let ifaces = interfaceMap(a[1]) else { throw BlueZSignalError.arguments("InterfacesAdded") }
            return .interfacesAdded(path: p, interfaces: ifaces)
        case ("org.freedesktop.DBus.ObjectManager", "InterfacesRemoved"):
            guard a.count == 2, let p = a[0].text, let names = a[1].stringArray else { throw BlueZSignalError.arguments("InterfacesRemoved") }
            return .interfacesRemoved(path: p, interfaces: names)
        case ("org.freedesktop.DBus.Properties", "PropertiesChanged"):
            guard let path, a.count == 3, let iface = a[0].text, let changed = a[1].stringKeyedDictionary,
                  let invalidated = a[2].stringArray else { throw BlueZSignalError.arguments("PropertiesChanged") }
            return .propertiesChanged(path: path, interface: iface, changed: changed, invalidated: invalidated)
        default:
            return nil
        }
    }

    /// `a{sa{sv}}`: interface → properties.
    static func interfaceMap(_ v: DBusValue) -> [String: [String: DBusValue]]? {
        guard let ifaces = v.stringKeyedDictionary else { return nil }
        var out: [String: [String: DBusValue]] = [:]
        for (name, props) in ifaces {
            guard let p = props.stringKeyedDictionary else { return nil }
            out[name] = p
        }
        return out
    }

    /// The reply of `GetManagedObjects` (`a{oa{sa{sv}}}`): path → interface → properties.
    static func managedObjects(_ v: DBusValue) -> [String: [String: [String: DBusValue]]]? {
        guard let objects = v.stringKeyedDictionary else { return nil }
        var out: [String: [String: [String: DBusValue]]] = [:]
        for (path, ifaces) in objects {
            guard let m = interfaceMap(ifaces) else { return nil }
            out[path] = m
        }
        return out
    }
}

enum BlueZSignalError: Error, Equatable {
    /// The signal's arguments do not have the types the D-Bus interface specifies.
    case arguments(String)
}

#!/usr/bin/env python3
"""Drive python-dbusmock's BlueZ template (bluez5) for the `ble` source's end-to-end tests.

    ble_mock_ctl.py --bus ADDRESS COMMAND [ARGS]

ADDRESS is the D-Bus address of the private bus the mock runs on. Commands:

    wait-bluez [--timeout S]        wait until org.bluez has an owner (the mock is up)
    add-adapter NAME                e.g. hci0 (Powered, not discovering)
    power NAME on|off               set the adapter's Powered and emit PropertiesChanged
    discovering NAME                print true/false: the adapter's Discovering property
    stop-discovering NAME           set Discovering false behind the client's back (so a test sees
                                    StartDiscovery being called again)
    discovery-filter NAME           print the last SetDiscoveryFilter argument as JSON
    wait-discovering NAME [--timeout S]   wait until Discovering is true (exit 1 if it never is)
    add-device NAME ADDRESS ALIAS   a device object (InterfacesAdded; the template gives it RSSI -79)
    update NAME ADDRESS [--rssi N] [--tx-power N] [--address-type T]
           [--mfr ID:HEX]... [--svc UUID:HEX]... [--rssi-as-text TEXT]
                                    change device properties in one PropertiesChanged
    remove-device NAME ADDRESS      RemoveDevice on the adapter (InterfacesRemoved)

Exit status 0 on success, 1 when a wait times out, 2 on a D-Bus error.
"""

import argparse
import json
import sys
import time

import dbus

BLUEZ = "org.bluez"
MOCK_IFACE = "org.freedesktop.DBus.Mock"
BLUEZ_MOCK_IFACE = "org.bluez.Mock"
ADAPTER_IFACE = "org.bluez.Adapter1"
DEVICE_IFACE = "org.bluez.Device1"


def device_path(adapter, address):
    return f"/org/bluez/{adapter}/dev_" + address.replace(":", "_").upper()


def byte_array(hex_text):
    return dbus.Array([dbus.Byte(b) for b in bytes.fromhex(hex_text)], signature="y", variant_level=1)


def update_properties(bus, args):
    props = {}
    if args.rssi is not None:
        props["RSSI"] = dbus.Int16(args.rssi, variant_level=1)
    if args.rssi_as_text is not None:
        # A value of the wrong type, as a broken or foreign peer might send.
        props["RSSI"] = dbus.String(args.rssi_as_text, variant_level=1)
    if args.tx_power is not None:
        props["TxPower"] = dbus.Int16(args.tx_power, variant_level=1)
    if args.address_type is not None:
        props["AddressType"] = dbus.String(args.address_type, variant_level=1)
    if args.mfr:
        entries = {}
        for item in args.mfr:
            cid, hex_text = item.split(":", 1)
            entries[dbus.UInt16(int(cid, 0))] = byte_array(hex_text)
        props["ManufacturerData"] = dbus.Dictionary(entries, signature="qv", variant_level=1)
    if args.svc:
        entries = {}
        for item in args.svc:
            uuid, hex_text = item.rsplit(":", 1)
            entries[dbus.String(uuid)] = byte_array(hex_text)
        props["ServiceData"] = dbus.Dictionary(entries, signature="sv", variant_level=1)
    obj = bus.get_object(BLUEZ, device_path(args.adapter, args.address))
    # The mock's UpdateProperties cannot wrap dictionaries in variants (dbusmock 0.28), so the
    # signal is emitted from the device object directly, with the types bluetoothd sends.
    obj.EmitSignal(dbus.PROPERTIES_IFACE, "PropertiesChanged", "sa{sv}as",
                   [DEVICE_IFACE, dbus.Dictionary(props, signature="sv"), dbus.Array([], signature="s")],
                   dbus_interface=MOCK_IFACE)


def adapter_property(bus, adapter, name):
    obj = bus.get_object(BLUEZ, f"/org/bluez/{adapter}")
    return obj.Get(ADAPTER_IFACE, name, dbus_interface=dbus.PROPERTIES_IFACE)


def wait_for(predicate, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if predicate():
                return True
        except dbus.exceptions.DBusException:
            pass
        time.sleep(0.05)
    return False


def parse_args(argv):
    p = argparse.ArgumentParser(description="Drive dbusmock's BlueZ template.")
    p.add_argument("--bus", required=True, help="D-Bus address of the private bus")
    sub = p.add_subparsers(dest="command", required=True)
    w = sub.add_parser("wait-bluez")
    w.add_argument("--timeout", type=float, default=20)
    sub.add_parser("add-adapter").add_argument("adapter")
    pw = sub.add_parser("power")
    pw.add_argument("adapter")
    pw.add_argument("state", choices=["on", "off"])
    sub.add_parser("discovering").add_argument("adapter")
    sub.add_parser("stop-discovering").add_argument("adapter")
    sub.add_parser("discovery-filter").add_argument("adapter")
    wd = sub.add_parser("wait-discovering")
    wd.add_argument("adapter")
    wd.add_argument("--timeout", type=float, default=20)
    ad = sub.add_parser("add-device")
    ad.add_argument("adapter")
    ad.add_argument("address")
    ad.add_argument("alias")
    up = sub.add_parser("update")
    up.add_argument("adapter")
    up.add_argument("address")
    up.add_argument("--rssi", type=int)
    up.add_argument("--rssi-as-text")
    up.add_argument("--tx-power", type=int)
    up.add_argument("--address-type")
    up.add_argument("--mfr", action="append", default=[], help="COMPANY_ID:HEX (id decimal or 0x…)")
    up.add_argument("--svc", action="append", default=[], help="UUID:HEX")
    rd = sub.add_parser("remove-device")
    rd.add_argument("adapter")
    rd.add_argument("address")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    try:
        bus = dbus.bus.BusConnection(args.bus)
        if args.command == "wait-bluez":
            return 0 if wait_for(lambda: bus.name_has_owner(BLUEZ), args.timeout) else 1
        if args.command == "add-adapter":
            bus.get_object(BLUEZ, "/").AddAdapter(args.adapter, "locus-test", dbus_interface=BLUEZ_MOCK_IFACE)
        elif args.command == "power":
            obj = bus.get_object(BLUEZ, f"/org/bluez/{args.adapter}")
            obj.UpdateProperties(ADAPTER_IFACE, {"Powered": dbus.Boolean(args.state == "on", variant_level=1)},
                                 dbus_interface=MOCK_IFACE)
        elif args.command == "stop-discovering":
            obj = bus.get_object(BLUEZ, f"/org/bluez/{args.adapter}")
            obj.UpdateProperties(ADAPTER_IFACE, {"Discovering": dbus.Boolean(False, variant_level=1)},
                                 dbus_interface=MOCK_IFACE)
        elif args.command == "discovery-filter":
            value = adapter_property(bus, args.adapter, "DiscoveryFilter")
            print(json.dumps({str(k): (bool(v) if isinstance(v, dbus.Boolean) else
                                       int(v) if isinstance(v, (dbus.Int16, dbus.Int32, dbus.UInt16)) else str(v))
                              for k, v in value.items()}, sort_keys=True))
        elif args.command == "discovering":
            print("true" if adapter_property(bus, args.adapter, "Discovering") else "false")
        elif args.command == "wait-discovering":
            ok = wait_for(lambda: bool(adapter_property(bus, args.adapter, "Discovering")), args.timeout)
            print("true" if ok else "false")
            return 0 if ok else 1
        elif args.command == "add-device":
            bus.get_object(BLUEZ, "/").AddDevice(args.adapter, args.address, args.alias, dbus_interface=BLUEZ_MOCK_IFACE)
        elif args.command == "update":
            update_properties(bus, args)
        elif args.command == "remove-device":
            obj = bus.get_object(BLUEZ, f"/org/bluez/{args.adapter}")
            obj.RemoveDevice(dbus.ObjectPath(device_path(args.adapter, args.address)), dbus_interface=ADAPTER_IFACE)
    except dbus.exceptions.DBusException as e:
        print(f"ble_mock_ctl.py {args.command}: {e.get_dbus_name()}: {e.get_dbus_message()}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

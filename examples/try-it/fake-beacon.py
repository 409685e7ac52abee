#!/usr/bin/python3
"""Advertise one iBeacon on python-dbusmock's BlueZ stand-in (docs/try-it.md, "A BLE beacon").

    /usr/bin/python3 examples/try-it/fake-beacon.py unix:path=/tmp/locus-try/bus

Waits for `python3 -m dbusmock --session -t bluez5` on that bus, adds adapter hci0 and one
device, then once a second sends what bluetoothd sends for an advertisement heard: a
PropertiesChanged with the RSSI and the iBeacon frame (Apple's company id 0x004C). Ctrl-C stops.
Needs python3-dbus and python3-dbusmock; no Bluetooth hardware.
"""

import sys
import time

import dbus

UUID = "e2c56db5-dffb-48d2-b060-d0f5a71096e0"
MAJOR, MINOR, MEASURED_POWER = 1, 2, -59
ADDRESS = "AA:BB:CC:00:00:01"


def ibeacon_frame():
    return bytes([0x02, 0x15]) + bytes.fromhex(UUID.replace("-", "")) + \
        MAJOR.to_bytes(2, "big") + MINOR.to_bytes(2, "big") + (MEASURED_POWER & 0xFF).to_bytes(1, "big")


def main(address):
    bus = dbus.bus.BusConnection(address)
    deadline = time.monotonic() + 30
    while not bus.name_has_owner("org.bluez"):
        if time.monotonic() > deadline:
            sys.exit("org.bluez is not on the bus: is `python3 -m dbusmock --session -t bluez5` running?")
        time.sleep(0.1)
    mock = bus.get_object("org.bluez", "/")
    mock.AddAdapter("hci0", "try-it", dbus_interface="org.bluez.Mock")
    mock.AddDevice("hci0", ADDRESS, "try-it-beacon", dbus_interface="org.bluez.Mock")
    device = bus.get_object("org.bluez", "/org/bluez/hci0/dev_" + ADDRESS.replace(":", "_"))
    frame = dbus.Array([dbus.Byte(b) for b in ibeacon_frame()], signature="y", variant_level=1)
    print(f"advertising iBeacon {UUID} major {MAJOR} minor {MINOR} on hci0; Ctrl-C stops", flush=True)
    n = 0
    while True:
        rssi = -60 - (n % 5)  # about a metre away, a little noise
        props = {"RSSI": dbus.Int16(rssi, variant_level=1),
                 "ManufacturerData": dbus.Dictionary({dbus.UInt16(0x004C): frame}, signature="qv", variant_level=1)}
        device.EmitSignal("org.freedesktop.DBus.Properties", "PropertiesChanged", "sa{sv}as",
                          ["org.bluez.Device1", dbus.Dictionary(props, signature="sv"), dbus.Array([], signature="s")],
                          dbus_interface="org.freedesktop.DBus.Mock")
        n += 1
        time.sleep(1)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    try:
        main(sys.argv[1])
    except KeyboardInterrupt:
        pass

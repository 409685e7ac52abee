// The `ble` source (BlueZ over D-Bus) is being written; this file holds the target's place.
enum BLESourcePlaceholder {}

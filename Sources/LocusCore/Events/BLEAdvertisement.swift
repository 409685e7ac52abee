/// One Bluetooth LE advertisement as heard by a scanner (`obs.ble`, topic `obs.ble.<source>`).
/// Binary fields travel as lower-case hex strings.
public struct BLEAdvertisement: Payload, Equatable {
    public static let eventType = "obs.ble"
    public static let schemaVersion = 1

    public struct ManufacturerData: Sendable, Equatable {
        /// Bluetooth SIG company id (sent little-endian on air; here as a number).
        public var companyID: Int
        public var data: String
        public init(companyID: Int, data: String) { self.companyID = companyID; self.data = data }
    }

    public struct ServiceData: Sendable, Equatable {
        /// 16-, 32- or 128-bit service UUID as text (`feaa`, or the full 36-character form).
        public var uuid: String
        public var data: String
        public init(uuid: String, data: String) { self.uuid = uuid; self.data = data }
    }

    /// A decoded beacon identity; which fields are set depends on `format`.
    public struct Beacon: Sendable, Equatable {
        /// `ibeacon`, `altbeacon`, `eddystone_uid`, `eddystone_url`, `eddystone_tlm`, `eddystone_eid`.
        public var format: String
        public var uuid: String?
        public var major: Int?
        public var minor: Int?
        /// AltBeacon id, hex.
        public var beaconID: String?
        /// Eddystone-UID namespace (10 bytes hex) and instance (6 bytes hex).
        public var namespace: String?
        public var instance: String?
        public var url: String?
        /// Eddystone-EID ephemeral id, hex.
        public var ephemeralID: String?
        /// Calibrated transmit power at 1 m, dBm (Eddystone's 0 m value converted).
        public var measuredPower: Int?
        /// Eddystone-TLM battery voltage, mV (absent when the beacon reports 0, "not supported").
        public var batteryMillivolts: Int?
        /// Eddystone-TLM beacon temperature, °C (8.8 fixed point on air; absent for 0x8000).
        public var temperature: Double?
        /// Eddystone-TLM advertising PDUs sent since power-up.
        public var advertisingCount: Int?
        /// Eddystone-TLM time since power-up, seconds (SEC_CNT / 10: SEC_CNT counts 0.1 s).
        public var uptime: Double?
        /// Eddystone-TLM: true for an encrypted frame (ETLM), whose telemetry cannot be read here.
        public var encrypted: Bool?

        public init(format: String, uuid: String? = nil, major: Int? = nil, minor: Int? = nil, beaconID: String? = nil,
                    namespace: String? = nil, instance: String? = nil, url: String? = nil, ephemeralID: String? = nil,
                    measuredPower: Int? = nil, batteryMillivolts: Int? = nil, temperature: Double? = nil,
                    advertisingCount: Int? = nil, uptime: Double? = nil, encrypted: Bool? = nil) {
            self.format = format
            self.uuid = uuid
            self.major = major
            self.minor = minor
            self.beaconID = beaconID
            self.namespace = namespace
            self.instance = instance
            self.url = url
            self.ephemeralID = ephemeralID
            self.measuredPower = measuredPower
            self.batteryMillivolts = batteryMillivolts
            self.temperature = temperature
            self.advertisingCount = advertisingCount
            self.uptime = uptime
            self.encrypted = encrypted
        }

        /// An AltBeacon's id as its ecosystem writes it (`id1`, `id2`, `id3` on the wire,
        /// derived, not read back); nil for other formats and non-standard ids.
        public var altBeaconIdentifiers: AltBeaconIdentifiers? {
            guard format == "altbeacon", let beaconID else { return nil }
            return AltBeaconIdentifiers(beaconID: beaconID)
        }
    }

    public var source: String
    /// `AA:BB:CC:DD:EE:FF`.
    public var address: String
    /// `public`, `random` or `unknown`.
    public var addressType: String
    /// Received signal strength, dBm.
    public var rssi: Int
    /// Advertised TX power level, dBm.
    public var txPower: Int?
    public var name: String?
    public var serviceUUIDs: [String]
    public var manufacturerData: [ManufacturerData]
    public var serviceData: [ServiceData]
    public var beacon: Beacon?

    public init(source: String, address: String, addressType: String, rssi: Int, txPower: Int? = nil, name: String? = nil,
                serviceUUIDs: [String] = [], manufacturerData: [ManufacturerData] = [], serviceData: [ServiceData] = [],
                beacon: Beacon? = nil) {
        self.source = source
        self.address = address
        self.addressType = addressType
        self.rssi = rssi
        self.txPower = txPower
        self.name = name
        self.serviceUUIDs = serviceUUIDs
        self.manufacturerData = manufacturerData
        self.serviceData = serviceData
        self.beacon = beacon
    }
}

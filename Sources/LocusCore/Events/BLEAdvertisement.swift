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

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key("source"); w.string(source)
        w.key("address"); w.string(address)
        w.key("address_type"); w.string(addressType)
        w.key("rssi"); w.int(rssi)
        w.field("tx_power", txPower)
        w.field("name", name)
        if !serviceUUIDs.isEmpty {
            w.key("service_uuids"); w.beginArray(); serviceUUIDs.forEach { w.string($0) }; w.endArray()
        }
        if !manufacturerData.isEmpty {
            w.key("manufacturer_data"); w.beginArray()
            for m in manufacturerData { w.beginObject(); w.key("company_id"); w.int(m.companyID); w.key("data"); w.string(m.data); w.endObject() }
            w.endArray()
        }
        if !serviceData.isEmpty {
            w.key("service_data"); w.beginArray()
            for s in serviceData { w.beginObject(); w.key("uuid"); w.string(s.uuid); w.key("data"); w.string(s.data); w.endObject() }
            w.endArray()
        }
        if let b = beacon {
            w.key("beacon"); w.beginObject()
            w.key("format"); w.string(b.format)
            w.field("uuid", b.uuid); w.field("major", b.major); w.field("minor", b.minor)
            w.field("beacon_id", b.beaconID)
            // AltBeacon's id as its ecosystem writes it, derived (reading ignores it).
            if b.format == "altbeacon", let id = b.beaconID, let ids = AltBeaconIdentifiers(beaconID: id) { ids.writeMembers(to: &w) }
            w.field("namespace", b.namespace); w.field("instance", b.instance)
            w.field("url", b.url); w.field("ephemeral_id", b.ephemeralID); w.field("measured_power", b.measuredPower)
            w.field("battery_mv", b.batteryMillivolts)
            // 8.8 fixed point: k/256 °C has at most 8 fraction digits, so 8 write it exactly.
            w.field("temperature", b.temperature, fractionDigits: 8)
            w.field("advertising_count", b.advertisingCount)
            w.field("uptime", b.uptime, fractionDigits: 1)
            w.field("encrypted", b.encrypted)
            w.endObject()
        }
        w.endObject()
    }

    public init(from r: inout JSONReader) throws {
        var source: String?, address: String?, addressType = "unknown", rssi: Int?
        self.init(source: "", address: "", addressType: "unknown", rssi: 0)
        try r.readObject { r, k in
            if k == "source" { source = try r.readString() }
            else if k == "address" { address = try r.readString() }
            else if k == "address_type" { addressType = try r.readString() }
            else if k == "rssi" { rssi = try r.readInt() }
            else if k == "tx_power" { txPower = try r.readOptionalInt() }
            else if k == "name" { name = try r.readOptionalString() }
            else if k == "service_uuids" { try r.readArray { r in serviceUUIDs.append(try r.readString()) } }
            else if k == "manufacturer_data" {
                try r.readArray { r in
                    var id: Int?, data: String?
                    try r.readObject { r, k in
                        if k == "company_id" { id = try r.readInt() } else if k == "data" { data = try r.readString() } else { try r.skipValue() }
                    }
                    guard let id, let data else { throw r.error("manufacturer_data needs company_id and data") }
                    manufacturerData.append(ManufacturerData(companyID: id, data: data))
                }
            }
            else if k == "service_data" {
                try r.readArray { r in
                    var uuid: String?, data: String?
                    try r.readObject { r, k in
                        if k == "uuid" { uuid = try r.readString() } else if k == "data" { data = try r.readString() } else { try r.skipValue() }
                    }
                    guard let uuid, let data else { throw r.error("service_data needs uuid and data") }
                    serviceData.append(ServiceData(uuid: uuid, data: data))
                }
            }
            else if k == "beacon" {
                if r.readNull() { return }
                var b = Beacon(format: "")
                try r.readObject { r, k in
                    if k == "format" { b.format = try r.readString() }
                    else if k == "uuid" { b.uuid = try r.readOptionalString() }
                    else if k == "major" { b.major = try r.readOptionalInt() }
                    else if k == "minor" { b.minor = try r.readOptionalInt() }
                    else if k == "beacon_id" { b.beaconID = try r.readOptionalString() }
                    else if k == "namespace" { b.namespace = try r.readOptionalString() }
                    else if k == "instance" { b.instance = try r.readOptionalString() }
                    else if k == "url" { b.url = try r.readOptionalString() }
                    else if k == "ephemeral_id" { b.ephemeralID = try r.readOptionalString() }
                    else if k == "measured_power" { b.measuredPower = try r.readOptionalInt() }
                    else if k == "battery_mv" { b.batteryMillivolts = try r.readOptionalInt() }
                    else if k == "temperature" { b.temperature = try r.readOptionalDouble() }
                    else if k == "advertising_count" { b.advertisingCount = try r.readOptionalInt() }
                    else if k == "uptime" { b.uptime = try r.readOptionalDouble() }
                    else if k == "encrypted" { b.encrypted = try r.readOptionalBool() }
                    else { try r.skipValue() }
                }
                beacon = b
            }
            else { try r.skipValue() }
        }
        guard let source, let address, let rssi else { throw r.error("obs.ble needs source, address and rssi") }
        self.source = source
        self.address = address
        self.addressType = addressType
        self.rssi = rssi
    }
}

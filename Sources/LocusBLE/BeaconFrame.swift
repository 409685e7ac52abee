/// A beacon frame decoded from one manufacturer-data or service-data block.
///
/// Identities are kept as raw bytes (`BeaconBytes`, inline, no allocation) so that decoding and
/// matching cost no string work; `beacon` turns a frame into the `obs.ble` wire form.
public enum BeaconFrame: Sendable, Equatable {
    case iBeacon(IBeacon)
    case altBeacon(AltBeacon)
    case eddystoneUID(EddystoneUID)
    case eddystoneURL(EddystoneURL)
    case eddystoneTLM(EddystoneTLM)
    case eddystoneEID(EddystoneEID)

    /// Apple iBeacon: company 0x004C, type 0x02, length 0x15.
    public struct IBeacon: Sendable, Equatable {
        /// Proximity UUID, 16 bytes as sent (big-endian).
        public var uuid: BeaconBytes
        public var major: UInt16
        public var minor: UInt16
        /// Calibrated RSSI at 1 m, dBm.
        public var measuredPower: Int8
        public init(uuid: BeaconBytes, major: UInt16, minor: UInt16, measuredPower: Int8) {
            self.uuid = uuid; self.major = major; self.minor = minor; self.measuredPower = measuredPower
        }
    }

    /// AltBeacon: beacon code 0xBEAC under any company id.
    public struct AltBeacon: Sendable, Equatable {
        public var companyID: UInt16
        /// The 20-byte beacon id (by convention a 16-byte UUID, then 2-byte id2 and id3).
        public var beaconID: BeaconBytes
        /// Reference RSSI at 1 m, dBm.
        public var referenceRSSI: Int8
        /// The manufacturer-reserved byte; nil when the advertiser left it out (a 26-byte frame).
        public var reserved: UInt8?
        public init(companyID: UInt16, beaconID: BeaconBytes, referenceRSSI: Int8, reserved: UInt8?) {
            self.companyID = companyID; self.beaconID = beaconID; self.referenceRSSI = referenceRSSI; self.reserved = reserved
        }
    }

    /// Eddystone-UID (service 0xFEAA, frame 0x00).
    public struct EddystoneUID: Sendable, Equatable {
        /// Calibrated TX power at 0 m, dBm, as sent.
        public var txPowerAt0m: Int8
        /// 10 bytes.
        public var namespace: BeaconBytes
        /// 6 bytes.
        public var instance: BeaconBytes
        public init(txPowerAt0m: Int8, namespace: BeaconBytes, instance: BeaconBytes) {
            self.txPowerAt0m = txPowerAt0m; self.namespace = namespace; self.instance = instance
        }
    }

    /// Eddystone-URL (frame 0x10), URL expanded.
    public struct EddystoneURL: Sendable, Equatable {
        public var txPowerAt0m: Int8
        public var url: String
        public init(txPowerAt0m: Int8, url: String) { self.txPowerAt0m = txPowerAt0m; self.url = url }
    }

    /// Eddystone-TLM (frame 0x20): plain (version 0) or encrypted (version 1).
    ///
    /// Stored as sent (raw words, 40 bytes) rather than as optionals: the frame travels inside
    /// every decoded advertisement's `BeaconFrame`, whose size is that of its largest case.
    public struct EddystoneTLM: Sendable, Equatable {
        public var version: UInt8
        private var rawBattery: UInt16
        private var rawTemperature: UInt16
        private var rawAdvertisingCount: UInt32
        private var rawUptime: UInt32
        /// Encrypted TLM (ETLM, 12 bytes), salt and MIC as sent, for version 1.
        public var encrypted: BeaconBytes?

        /// Battery voltage, mV; nil when the beacon reports 0 (not supported) or the frame is encrypted.
        public var batteryMillivolts: Int? { encrypted == nil && rawBattery != 0 ? Int(rawBattery) : nil }
        /// Beacon temperature, °C (signed 8.8 fixed point on air); nil for 0x8000 (not supported) or encrypted.
        public var temperature: Double? {
            encrypted == nil && rawTemperature != 0x8000 ? Double(Int16(bitPattern: rawTemperature)) / 256 : nil
        }
        /// Advertising PDUs since power-up; nil when encrypted.
        public var advertisingCount: UInt32? { encrypted == nil ? rawAdvertisingCount : nil }
        /// Time since power-up in 0.1 s units (SEC_CNT as sent); nil when encrypted.
        public var uptimeTenths: UInt32? { encrypted == nil ? rawUptime : nil }

        /// A plain frame's fields as sent: VBATT (mV, 0 = not supported), TEMP (8.8, 0x8000 = not
        /// supported), ADV_CNT, SEC_CNT.
        public init(version: UInt8, rawBattery: UInt16, rawTemperature: UInt16, advertisingCount: UInt32, uptimeTenths: UInt32) {
            self.version = version; self.rawBattery = rawBattery; self.rawTemperature = rawTemperature
            self.rawAdvertisingCount = advertisingCount; self.rawUptime = uptimeTenths; self.encrypted = nil
        }

        /// An encrypted frame (ETLM, salt and MIC as sent).
        public init(version: UInt8, encrypted: BeaconBytes) {
            self.version = version; rawBattery = 0; rawTemperature = 0x8000; rawAdvertisingCount = 0; rawUptime = 0
            self.encrypted = encrypted
        }
    }

    /// Eddystone-EID (frame 0x30): a rotating ephemeral id, reported as such (not resolvable here).
    public struct EddystoneEID: Sendable, Equatable {
        public var txPowerAt0m: Int8
        /// 8 bytes.
        public var ephemeralID: BeaconBytes
        public init(txPowerAt0m: Int8, ephemeralID: BeaconBytes) { self.txPowerAt0m = txPowerAt0m; self.ephemeralID = ephemeralID }
    }
}

/// Eddystone advertises its calibrated power at 0 m; iBeacon and AltBeacon at 1 m. The Eddystone
/// specification's rule of thumb for the loss over that first metre is 41 dB (free-space loss at
/// 2.4 GHz plus antenna effects), so power at 1 m = power at 0 m − 41. AltBeacon's Android library
/// uses the same constant.
public let eddystonePowerLossAt1m = 41

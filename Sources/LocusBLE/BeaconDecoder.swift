import LocusCore

/// Decodes beacon frames (iBeacon, AltBeacon, Eddystone) from manufacturer-specific and service
/// data. Never traps: a block that is too short, too long or of another kind yields nil.
///
/// The work is done on `UnsafeBufferPointer`s (no copy of the input); the collection-taking
/// forms are conveniences over them.
public enum BeaconDecoder {
    /// Apple's company id.
    public static let appleCompanyID: UInt16 = 0x004C
    /// Eddystone's 16-bit service UUID.
    public static let eddystoneServiceUUID: UInt16 = 0xFEAA

    /// A beacon in one manufacturer-data block. `data` is what follows the company id.
    public static func frame(companyID: UInt16, data: some RandomAccessCollection<UInt8>) -> BeaconFrame? {
        withBuffer(data) { frame(companyID: companyID, bytes: $0) }
    }

    /// A beacon in one manufacturer-data block (`bytes` follow the company id).
    public static func frame(companyID: UInt16, bytes d: UnsafeBufferPointer<UInt8>) -> BeaconFrame? {
        manufacturerKind(companyID: companyID, d).map { build($0, companyID: companyID, d) }
    }

    /// The iBeacon layout (`02 15` uuid(16) major(2) minor(2) power(1)) whatever the company id.
    /// Only Apple's (0x004C) is an iBeacon; other vendors reuse the layout (WinBeacon's tests do),
    /// so this is exposed for callers that want to read it anyway.
    public static func iBeaconLayout(data: some RandomAccessCollection<UInt8>) -> BeaconFrame.IBeacon? {
        withBuffer(data) { iBeaconLayout(bytes: $0) }
    }

    static func iBeaconLayout(bytes d: UnsafeBufferPointer<UInt8>) -> BeaconFrame.IBeacon? {
        guard isIBeaconLayout(d) else { return nil }
        return .init(uuid: BeaconBytes(d, 2..<18), major: be16(d, 18), minor: be16(d, 20), measuredPower: Int8(bitPattern: d[22]))
    }

    /// 23 bytes `02 15 …`. Some emitters append bytes after the frame (the Cypress sensor beacon
    /// packs readings there); the frame is still the first 23 bytes, so longer data is accepted.
    @inline(__always) static func isIBeaconLayout(_ d: UnsafeBufferPointer<UInt8>) -> Bool {
        d.count >= 23 && d[0] == 0x02 && d[1] == 0x15
    }

    /// Which frame a block holds, decided without building it (`AdvertisingData` detects while
    /// scanning and builds once).
    enum FrameKind { case iBeacon, altBeacon, eddystoneUID, eddystoneURL, plainTLM, encryptedTLM, eddystoneEID }

    /// The frame kind of manufacturer data (after the company id), or nil.
    @inline(__always) static func manufacturerKind(companyID: UInt16, _ d: UnsafeBufferPointer<UInt8>) -> FrameKind? {
        if companyID == appleCompanyID, isIBeaconLayout(d) { return .iBeacon }
        // AltBeacon: be ac + id(20) + ref rssi(1) [+ reserved(1)].
        if d.count >= 23, d.count <= 24, d[0] == 0xBE, d[1] == 0xAC { return .altBeacon }
        return nil
    }

    /// The frame kind of Eddystone service data (from the frame-type byte on), or nil.
    static func eddystoneKind(_ d: UnsafeBufferPointer<UInt8>) -> FrameKind? {
        guard d.count >= 2 else { return nil }
        switch d[0] {
        case 0x00:
            // 18 bytes without the two RFU bytes (older firmware drops them), 20 with.
            return d.count == 18 || d.count == 20 ? .eddystoneUID : nil
        case 0x10:
            // Scheme byte plus 1–17 encoded bytes, none of them reserved.
            guard d.count >= 4, d.count <= 20, Int(d[2]) < EddystoneURLCodec.schemes.count else { return nil }
            for b in d[3...] where b >= 0x0E && (b <= 0x20 || b >= 0x7F) { return nil }
            return .eddystoneURL
        case 0x20:
            // The version byte decides (spec: 0x00 plain, 14 bytes; 0x01 encrypted, 18 bytes).
            // A frame whose length does not fit its version is rejected rather than guessed at:
            // reading a cut ETLM as plain would publish its ciphertext as telemetry.
            if d[1] == 0x00, d.count == 14 { return .plainTLM }
            if d[1] == 0x01, d.count == 18 { return .encryptedTLM }
            return nil
        case 0x30:
            return d.count == 10 ? .eddystoneEID : nil
        default:
            return nil
        }
    }

    /// Builds the frame of `kind` from `d`, which `manufacturerKind`/`eddystoneKind` accepted as such.
    static func build(_ kind: FrameKind, companyID: UInt16, _ d: UnsafeBufferPointer<UInt8>) -> BeaconFrame {
        switch kind {
        case .iBeacon:
            return .iBeacon(.init(uuid: BeaconBytes(d, 2..<18), major: be16(d, 18), minor: be16(d, 20), measuredPower: Int8(bitPattern: d[22])))
        case .altBeacon:
            return .altBeacon(.init(companyID: companyID, beaconID: BeaconBytes(d, 2..<22), referenceRSSI: Int8(bitPattern: d[22]),
                                    reserved: d.count == 24 ? d[23] : nil))
        case .eddystoneUID:
            return .eddystoneUID(.init(txPowerAt0m: Int8(bitPattern: d[1]), namespace: BeaconBytes(d, 2..<12), instance: BeaconBytes(d, 12..<18)))
        case .eddystoneURL:
            // Validated by eddystoneKind, so decode succeeds.
            return .eddystoneURL(.init(txPowerAt0m: Int8(bitPattern: d[1]), url: EddystoneURLCodec.decode(scheme: d[2], body: d[3...]) ?? ""))
        case .plainTLM:
            return .eddystoneTLM(plainTLM(d))
        case .encryptedTLM:
            return .eddystoneTLM(.init(version: 1, encrypted: BeaconBytes(d, 2..<18)))
        case .eddystoneEID:
            return .eddystoneEID(.init(txPowerAt0m: Int8(bitPattern: d[1]), ephemeralID: BeaconBytes(d, 2..<10)))
        }
    }

    /// A beacon in one service-data block with a 16-bit service UUID. `data` follows the UUID.
    public static func frame(serviceUUID16 uuid: UInt16, data: some RandomAccessCollection<UInt8>) -> BeaconFrame? {
        guard uuid == eddystoneServiceUUID else { return nil }
        return withBuffer(data) { eddystone(bytes: $0) }
    }

    /// An Eddystone frame (service data of 0xFEAA, from the frame-type byte on).
    public static func eddystone(_ d: [UInt8]) -> BeaconFrame? {
        d.withUnsafeBufferPointer { eddystone(bytes: $0) }
    }

    /// An Eddystone frame from the frame-type byte on.
    public static func eddystone(bytes d: UnsafeBufferPointer<UInt8>) -> BeaconFrame? {
        eddystoneKind(d).map { build($0, companyID: 0, d) }
    }

    /// The plain TLM layout of a 14-byte TLM frame whatever its version byte (kept as sent).
    /// `eddystone` only reads version 0 this way; this is for callers whose beacons mislabel
    /// plain frames (the AltBeacon library's test frame says version 1).
    public static func tlmLayout(_ d: [UInt8]) -> BeaconFrame.EddystoneTLM? {
        guard d.count == 14, d[0] == 0x20 else { return nil }
        return d.withUnsafeBufferPointer { plainTLM($0) }
    }

    static func plainTLM(_ d: UnsafeBufferPointer<UInt8>) -> BeaconFrame.EddystoneTLM {
        .init(version: d[1], rawBattery: be16(d, 2), rawTemperature: be16(d, 4), advertisingCount: be32(d, 6), uptimeTenths: be32(d, 10))
    }

    /// The beacon identity of an advertisement's blocks, in the `obs.ble` wire form: the first
    /// manufacturer block that is a beacon, else the first Eddystone service-data block.
    /// Blocks whose hex does not parse are skipped.
    public static func beacon(manufacturerData: [BLEAdvertisement.ManufacturerData],
                              serviceData: [BLEAdvertisement.ServiceData]) -> BLEAdvertisement.Beacon? {
        for m in manufacturerData {
            guard m.companyID >= 0, m.companyID <= 0xFFFF, let bytes = Hex.bytes(m.data) else { continue }
            if let f = frame(companyID: UInt16(m.companyID), data: bytes) { return f.beacon }
        }
        for s in serviceData where s.uuid == "feaa" || s.uuid == "0000feaa-0000-1000-8000-00805f9b34fb" {
            if let bytes = Hex.bytes(s.data), let f = eddystone(bytes) { return f.beacon }
        }
        return nil
    }

    @inline(__always) static func withBuffer<R>(_ data: some RandomAccessCollection<UInt8>,
                                                _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let r = data.withContiguousStorageIfAvailable(body) { return r }
        return Array(data).withUnsafeBufferPointer(body)
    }

    @inline(__always) static func be16(_ d: UnsafeBufferPointer<UInt8>, _ i: Int) -> UInt16 { UInt16(d[i]) << 8 | UInt16(d[i + 1]) }
    @inline(__always) static func be32(_ d: UnsafeBufferPointer<UInt8>, _ i: Int) -> UInt32 {
        UInt32(d[i]) << 24 | UInt32(d[i + 1]) << 16 | UInt32(d[i + 2]) << 8 | UInt32(d[i + 3])
    }
}

extension BeaconFrame {
    /// The `obs.ble` `beacon` object for this frame. TX power is converted to 1 m for Eddystone
    /// (`eddystonePowerLossAt1m`), so `measured_power` means the same for every format.
    /// Plain TLM carries its telemetry (uptime in seconds = SEC_CNT / 10); encrypted TLM only
    /// says it is encrypted.
    public var beacon: BLEAdvertisement.Beacon {
        switch self {
        case .iBeacon(let b):
            return .init(format: "ibeacon", uuid: Hex.uuidString(b.uuid), major: Int(b.major), minor: Int(b.minor),
                         measuredPower: Int(b.measuredPower))
        case .altBeacon(let b):
            return .init(format: "altbeacon", beaconID: Hex.string(b.beaconID), measuredPower: Int(b.referenceRSSI))
        case .eddystoneUID(let b):
            return .init(format: "eddystone_uid", namespace: Hex.string(b.namespace), instance: Hex.string(b.instance),
                         measuredPower: Int(b.txPowerAt0m) - eddystonePowerLossAt1m)
        case .eddystoneURL(let b):
            return .init(format: "eddystone_url", url: b.url, measuredPower: Int(b.txPowerAt0m) - eddystonePowerLossAt1m)
        case .eddystoneTLM(let t):
            if t.encrypted != nil { return .init(format: "eddystone_tlm", encrypted: true) }
            return .init(format: "eddystone_tlm", batteryMillivolts: t.batteryMillivolts, temperature: t.temperature,
                         advertisingCount: t.advertisingCount.map(Int.init), uptime: t.uptimeTenths.map { Double($0) / 10 })
        case .eddystoneEID(let b):
            return .init(format: "eddystone_eid", ephemeralID: Hex.string(b.ephemeralID),
                         measuredPower: Int(b.txPowerAt0m) - eddystonePowerLossAt1m)
        }
    }
}

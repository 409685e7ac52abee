import LocusBLE
import LocusCore

/// What our decoders make of one vector, read according to its `format`.
struct Decoded {
    var vector: Vector
    /// AD structures: the payload itself, or the data of the (first) HCI report.
    var ad: AdvertisingData?
    var event: HCIEventParser.Event?
    var report: HCIAdvertisingReport?
    /// The beacon: `ad.beacon`, or the frame decoded directly for frame-only formats.
    var beacon: BeaconFrame?
    /// `eddystone_url_encoded`: the decoded URL.
    var url: String?
    /// `manufacturer_data`: the observation built through the BlueZ properties path.
    var bluez: BLEAdvertisement?
    /// The `obs.ble` observation, where the input has an address (HCI) or is AD bytes.
    var advertisement: BLEAdvertisement?
    /// Why decoding failed, for vectors that must be rejected.
    var failure: String?

    init(_ v: Vector) {
        vector = v
        let b = v.bytes
        switch v.format {
        case "ad_structures":
            let ad = AdvertisingData(b)
            self.ad = ad
            beacon = ad.beacon
            advertisement = BLEAdvertisement(advertisingData: ad, address: BLEAddress(value: 0), addressType: "unknown",
                                             rssi: -60, source: "test")
        case "hci_event_h4", "hci_event_h4_loose", "hci_event_no_h4":
            switch HCIEventParser.parse(b) {
            case .success(let e): event = e; report = e.reports.first
            case .failure(let e): failure = "\(e)"
            }
        case "le_adv_report_body":
            switch HCIEventParser.reportBody(b) {
            case .success(let r): report = r
            case .failure(let e): failure = "\(e)"
            }
        case "eddystone_url_encoded":
            url = b.isEmpty ? nil : EddystoneURLCodec.decode(scheme: b[0], body: b.dropFirst())
        case "eddystone_frame":
            beacon = BeaconDecoder.eddystone(b)
        case "manufacturer_data":
            beacon = BeaconDecoder.frame(companyID: UInt16(v.companyID!), data: b)
            var p = BlueZDeviceProperties(address: "00:00:00:00:00:00", addressType: "public")
            // The RSSI is an input of the source's test (its BluetoothServiceInfo), not part of
            // the bytes: it goes in as BlueZ's RSSI property and must come out unchanged.
            p.merge(BlueZDeviceProperties(rssi: v.expected["rssi"]?.int, manufacturerData: [UInt16(v.companyID!): b]))
            bluez = p.advertisement(source: "hci0")
            advertisement = bluez
        default:
            failure = "unknown format \(v.format)"
        }
        if let report {
            let ad = AdvertisingData(Array(report.data))
            self.ad = ad
            beacon = ad.beacon
            advertisement = BLEAdvertisement(report: report, source: "hci0")
        }
    }

    var manufacturer: [AdvertisingData.ManufacturerBlock] { ad?.manufacturerData ?? [] }
    var serviceData: [AdvertisingData.ServiceDataBlock] { ad?.serviceData ?? [] }

    func serviceData(_ uuid16: UInt32) -> ArraySlice<UInt8>? {
        serviceData.first { $0.uuid.shortValue == uuid16 && $0.uuid.width == 2 }?.data
    }

    var altBeacon: BeaconFrame.AltBeacon? { if case .altBeacon(let a) = beacon { return a }; return nil }
    /// The TLM frame; for a bare frame that `eddystone` rejects, its plain layout (see
    /// `VectorExpectations.deviations`, altbeacon-17).
    var tlm: BeaconFrame.EddystoneTLM? {
        if case .eddystoneTLM(let t) = beacon { return t }
        if vector.format == "eddystone_frame" { return BeaconDecoder.tlmLayout(vector.bytes) }
        return nil
    }

    /// The iBeacon: Apple's, else the iBeacon layout under another company id (WinBeacon reads
    /// it whatever the company).
    var iBeaconLayout: BeaconFrame.IBeacon? {
        if case .iBeacon(let i) = beacon { return i }
        for m in manufacturer { if let i = BeaconDecoder.iBeaconLayout(data: m.data) { return i } }
        if vector.format == "manufacturer_data" { return BeaconDecoder.iBeaconLayout(data: vector.bytes) }
        return nil
    }

    /// Eddystone TX power at 0 m as sent (the sources report it raw; `obs.ble` converts it).
    var eddystoneTxAt0m: Int? {
        switch beacon {
        case .eddystoneUID(let b): return Int(b.txPowerAt0m)
        case .eddystoneURL(let b): return Int(b.txPowerAt0m)
        case .eddystoneEID(let b): return Int(b.txPowerAt0m)
        default: return nil
        }
    }

    /// The beacon's format name in the sources' spelling (`eddystone-uid`, `ibeacon`, …).
    var sourceFrameName: String? {
        switch beacon {
        case .iBeacon: return "ibeacon"
        case .altBeacon: return "altbeacon"
        case .eddystoneUID: return "eddystone-uid"
        case .eddystoneURL: return "eddystone-url"
        case .eddystoneTLM(let t): return t.encrypted == nil ? "eddystone-tlm" : "eddystone-etlm"
        case .eddystoneEID: return "eddystone-eid"
        case nil:
            // Google/Apple Exposure Notification (service 0xFD6F): a rolling proximity
            // identifier (16 bytes) and encrypted metadata (4); not a beacon here.
            if serviceData(0xFD6F)?.count == 20 { return "exposure-notification" }
            return nil
        }
    }
}

import LocusCore

extension BLEAdvertisement {
    /// The `obs.ble` observation for advertising data heard from `address`.
    ///
    /// `txPower` is the advertisement's own TX power level (AD type 0x0A), else `fallbackTxPower`
    /// (an extended report's TX power field). The beacon is the one `AdvertisingData` detected,
    /// in the same wire form `BeaconDecoder.beacon` gives.
    public init(advertisingData ad: AdvertisingData, address: BLEAddress, addressType: String, rssi: Int, source: String,
                fallbackTxPower: Int? = nil) {
        self.init(source: source, address: address.description, addressType: addressType, rssi: rssi,
                  txPower: ad.txPowerLevel.map(Int.init) ?? fallbackTxPower, name: ad.localName,
                  serviceUUIDs: ad.serviceUUIDs.map(\.description),
                  manufacturerData: ad.manufacturerData.map { ManufacturerData(companyID: Int($0.companyID), data: Hex.string($0.data)) },
                  serviceData: ad.serviceData.map { ServiceData(uuid: $0.uuid.description, data: Hex.string($0.data)) },
                  beacon: ad.beacon?.beacon)
    }

    /// The observation for one HCI report; nil when the controller gave no RSSI (0x7F).
    public init?(report: HCIAdvertisingReport, source: String) {
        guard let rssi = report.rssi else { return nil }
        self.init(advertisingData: AdvertisingData(Array(report.data)), address: report.address, addressType: report.addressKind,
                  rssi: Int(rssi), source: source, fallbackTxPower: report.txPower.map(Int.init))
    }
}

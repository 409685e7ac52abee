import LocusBLE
import LocusCore

/// Maps each key a source asserts (in that source's own words, see the fixture README) to our
/// decoded value. A key not listed here fails the test: nothing is skipped silently.
enum VectorExpectations {
    /// Vectors where we decide differently from the source, on purpose; the keys concerned are
    /// checked against our documented behaviour instead (fixture README, "Deviations").
    static let deviations: [String: String] = [
        "altbeacon-17": "TLM version 1 (encrypted, per the spec) with the 14-byte plain layout: rejected by "
            + "BeaconDecoder.eddystone; the plain fields are read with BeaconDecoder.tlmLayout",
        "beacontools-05": "ETLM whose AD length byte (0x11) leaves SALT and MIC outside the structure: rejected; "
            + "the ETLM bytes are checked in the service data, SALT and MIC in the truncated tail",
    ]

    /// The check of a deviating vector's key, or nil to check it normally.
    static func deviation(_ key: String, _ want: JSONValue, _ d: Decoded) -> String?? {
        switch (d.vector.id, key) {
        case ("altbeacon-17", "frame_type"):
            if d.beacon != nil { return .some("frame_type: the version-1 14-byte frame was accepted") }
            return .some(d.tlm != nil && Int(d.vector.bytes[0]) == want.int ? nil : "frame_type: \(want)")
        case ("beacontools-05", "frame"):
            guard d.beacon == nil, let s = d.serviceData(0xFEAA), s.count == 14, s[s.startIndex] == 0x20, s[s.startIndex + 1] == 0x01
            else { return .some("frame: expected a rejected, cut ETLM, got \(String(describing: d.beacon))") }
            return .some(want.string == "eddystone-etlm" ? nil : "frame: \(want)")
        case ("beacontools-05", "encrypted_data_hex"):
            return .some(d.serviceData(0xFEAA).map { Hex.string($0.dropFirst(2)) } == want.string ? nil : "\(key)")
        case ("beacontools-05", "salt"), ("beacontools-05", "mic"):
            guard let ad = d.ad, let t = ad.truncated, t.range.count == 4 else { return .some("\(key): no 4-byte tail") }
            let i = t.range.lowerBound + (key == "salt" ? 0 : 2)
            return .some(Int(UInt16(ad.bytes[i]) | UInt16(ad.bytes[i + 1]) << 8) == want.int ? nil : "\(key)")
        default:
            return nil
        }
    }

    /// nil if `key` holds; otherwise what went wrong.
    static func check(_ key: String, _ want: JSONValue, _ d: Decoded) -> String? {
        if let result = deviation(key, want, d) { return result }
        let v = d.vector
        func eq(_ got: JSONValue) -> String? { got == want ? nil : "\(key): got \(got), want \(want)" }
        func int(_ x: (some BinaryInteger)?) -> JSONValue { x.map { .number(Double($0)) } ?? .null }
        func str(_ x: String?) -> JSONValue { x.map(JSONValue.string) ?? .null }
        func bool(_ x: Bool?) -> JSONValue { x.map(JSONValue.bool) ?? .null }
        func hexNumber(_ hex: String?) -> JSONValue {
            hex.flatMap { UInt64($0, radix: 16) }.map { .number(Double($0)) } ?? .null
        }
        let lowerAddress = (d.report?.address.description.lowercased())

        switch key {
        // --- beacon identity -------------------------------------------------------------
        case "beacon_type", "frame":
            return eq(str(d.sourceFrameName))
        case "parses":
            return eq(.bool(d.beacon != nil))
        case "is_ibeacon", "is_apple_ibeacon":
            if case .iBeacon = d.beacon { return eq(.bool(true)) }
            return eq(.bool(false))
        case "is_eddystone":
            // AOSP: Eddystone service data present; ours must decode it too, except the E2EE-EID
            // frame (0x40), which is reserved in the Eddystone spec and not decoded here.
            guard let eddy = d.serviceData(0xFEAA) else { return eq(.bool(false)) }
            let decoded: Bool
            switch d.beacon {
            case .eddystoneUID, .eddystoneURL, .eddystoneTLM, .eddystoneEID: decoded = true
            default: decoded = eddy.first == 0x40 && d.beacon == nil
            }
            return eq(.bool(decoded))
        case "is_e2ee_eid":
            return eq(.bool(d.serviceData(0xFEAA)?.first == 0x40 && d.beacon == nil))
        case "uuid":
            return eq(str(d.iBeaconLayout.map { Hex.uuidString($0.uuid) }))
        case "major":
            return eq(int(d.iBeaconLayout?.major))
        case "minor":
            return eq(int(d.iBeaconLayout?.minor))
        case "power":
            return eq(int(d.iBeaconLayout?.measuredPower))
        case "calibrated_tx_power":
            // WinBeacon: an iBeacon's power at 1 m, or Eddystone's at 0 m, as sent.
            return eq(int(d.iBeaconLayout.map { Int($0.measuredPower) } ?? d.eddystoneTxAt0m))
        case "tx_power":
            if v.sourcePrefix == "bdt" { return eq(int(d.ad?.txPowerLevel)) }
            // beacontools and aioblescan: Eddystone's 0 m value or iBeacon's 1 m value, as sent.
            if case .iBeacon(let i) = d.beacon { return eq(int(i.measuredPower)) }
            guard let tx0 = d.eddystoneTxAt0m else { return "\(key): no beacon with a TX power" }
            // The wire form carries the 1 m value.
            if let wire = d.advertisement?.beacon?.measuredPower, wire != tx0 - eddystonePowerLossAt1m {
                return "\(key): obs.ble measured_power \(wire) is not \(tx0) - 41"
            }
            return eq(int(tx0))
        case "tx_power_1m_dbm":
            return eq(int(d.advertisement?.beacon?.measuredPower))
        case "namespace", "instance":
            guard case .eddystoneUID(let u) = d.beacon else { return "\(key): not an Eddystone-UID" }
            let hex = Hex.string(key == "namespace" ? u.namespace : u.instance)
            // aioblescan prints them as integers ("0x63"); the others as hex strings.
            if let w = want.string, w.hasPrefix("0x") { return hexNumber(hex) == hexNumber(String(w.dropFirst(2))) ? nil : "\(key): \(hex) vs \(w)" }
            return eq(.string(hex))
        case "eid_hex":
            return eq(str(d.advertisement?.beacon?.ephemeralID))
        case "id1", "id2", "id3":
            guard let a = d.altBeacon else { return "\(key): not an AltBeacon" }
            let id = a.beaconID
            if key == "id1" { return eq(.string(Hex.uuidString(Array(id[0..<16])))) }
            let i = key == "id2" ? 16 : 18
            return eq(int(UInt16(id[i]) << 8 | UInt16(id[i + 1])))
        case "manufacturer":
            if let a = d.altBeacon, Int(a.companyID) != want.int { return "\(key): AltBeacon company \(a.companyID)" }
            return eq(int(d.manufacturer.first?.companyID))
        case "mfg_reserved":
            return eq(int(d.altBeacon?.reserved))
        case "data_fields_count":
            guard let a = d.altBeacon else { return "\(key): not an AltBeacon" }
            return eq(int(a.reserved == nil ? 0 : 1))
        case "data_field_0":
            // The AltBeacon library reads the reserved byte of a 26-byte frame (no reserved
            // byte) from the zero padding after the structure: its 0 stands for "absent".
            guard let a = d.altBeacon else { return "\(key): not an AltBeacon" }
            return eq(int(a.reserved ?? 0))
        case "parses_with_matching_beacon_type_code_0xaabb":
            // A standard (0xBEAC) decoder rejects it; with the code put back it is an AltBeacon.
            guard d.beacon == nil, var m = d.manufacturer.first?.data, m.count >= 2 else { return "\(key): decoded as \(String(describing: d.beacon))" }
            guard m[m.startIndex] == 0xAA, m[m.startIndex + 1] == 0xBB else { return "\(key): code is not aabb" }
            m[m.startIndex] = 0xBE; m[m.startIndex + 1] = 0xAC
            if case .altBeacon = BeaconDecoder.frame(companyID: d.manufacturer[0].companyID, data: m) { return eq(.bool(true)) }
            return eq(.bool(false))
        case "fixed_length_layout_i4_20_result":
            // A 20-byte fixed identifier must not be read from this Eddystone-URL frame.
            switch d.beacon {
            case .eddystoneURL: return eq(.null)
            default: return "\(key): beacon \(String(describing: d.beacon))"
            }
        case "overflow_area_id_with_layout_m2_2_01_i3_18":
            // iOS background "overflow area": Apple manufacturer data 0x01 + 16 bytes. Not an iBeacon.
            if d.beacon != nil { return "\(key): decoded as a beacon" }
            guard let m = d.manufacturer.first(where: { $0.companyID == 0x004C && $0.data.first == 0x01 && $0.data.count >= 17 })
            else { return "\(key): no overflow area" }
            return eq(.string(Hex.uuidString(Array(m.data.dropFirst().prefix(16)))))
        case "cypress_temperature_x100_int", "cypress_humidity_x100_int":
            // Cypress CYALKIT-E02 packs a Si7020 reading into the minor: humidity in the high
            // byte, temperature in the low byte (beacontools' formulas).
            guard let minor = d.iBeaconLayout?.minor else { return "\(key): no iBeacon" }
            let value = key.hasPrefix("cypress_temperature")
                ? 175.72 * Double(minor & 0xFF) * 256 / 65536 - 46.85
                : 125 * Double(minor >> 8) * 256 / 65536 - 6
            return eq(int(Int((value * 100).rounded(.towardZero))))
        case "identifier":
            return eq(str(d.serviceData(0xFD6F).map { Hex.string($0.prefix(16)) }))
        case "encrypted_metadata_hex":
            return eq(str(d.serviceData(0xFD6F).map { Hex.string($0.dropFirst(16)) }))

        // --- Eddystone TLM ---------------------------------------------------------------
        case "frame_type":
            return eq(int(d.vector.bytes.first.map { d.tlm != nil ? $0 : 0xFF }))
        case "version":
            return eq(int(d.tlm?.version))
        case "voltage_mv", "vbatt_raw":
            return eq(int(d.tlm.map { $0.batteryMillivolts ?? 0 }))
        case "temperature_c":
            return eq(d.tlm?.temperature.map(JSONValue.number) ?? .null)
        case "temperature_c_approx":
            guard let t = d.tlm?.temperature, let w = want.double else { return "\(key): no temperature" }
            return abs(t - w) < 0.1 ? nil : "\(key): \(t)"
        case "temp_raw":
            return eq(int(d.tlm?.temperature.map { Int(($0 * 256).rounded()) }))
        case "advertising_count", "adv_cnt":
            return eq(int(d.tlm?.advertisingCount))
        case "seconds_since_boot", "sec_cnt":
            // The raw SEC_CNT (beacontools' name notwithstanding); obs.ble carries SEC_CNT / 10 s.
            if let raw = d.tlm?.uptimeTenths, let wire = d.advertisement?.beacon?.uptime, wire != Double(raw) / 10 {
                return "\(key): obs.ble uptime \(wire)"
            }
            return eq(int(d.tlm?.uptimeTenths))
        case "encrypted_data_hex":
            return eq(str(d.tlm?.encrypted.map { Hex.string($0.prefix(12)) }))
        case "salt", "mic":
            // beacontools reads SALT and MIC as little-endian 16-bit numbers.
            guard let e = d.tlm?.encrypted, e.count == 16 else { return "\(key): not an encrypted TLM" }
            if d.advertisement?.beacon?.encrypted != true { return "\(key): obs.ble does not say encrypted" }
            let i = key == "salt" ? 12 : 14
            return eq(int(UInt16(e[i]) | UInt16(e[i + 1]) << 8))
        case "reencoded_frame_hex":
            // The frame sits in a structure that claims more bytes than there are: not decoded,
            // but kept as the truncated structure.
            guard d.beacon == nil, let t = d.ad?.truncated, t.type == ADType.serviceData16, let ad = d.ad,
                  t.valueRange.count >= 2, ad.bytes[t.valueRange.lowerBound] == 0xAA, ad.bytes[t.valueRange.lowerBound + 1] == 0xFE
            else { return "\(key): no truncated Eddystone structure" }
            return eq(.string(Hex.string(ad.bytes[(t.valueRange.lowerBound + 2)..<t.valueRange.upperBound])))

        // --- URLs --------------------------------------------------------------------------
        case "url":
            if v.format == "eddystone_url_encoded" {
                // Encode-direction entries give the URL as typed; decoding yields scheme and host lower-cased.
                return d.url == urlLowercasingHost(want.string ?? "") ? nil : "\(key): got \(d.url ?? "nil")"
            }
            if case .eddystoneURL(let u) = d.beacon { return eq(.string(u.url)) }
            // UriBeacon (service 0xFED8): flags, TX power, then the same URL encoding.
            if let uri = d.serviceData(0xFED8), uri.count >= 3 {
                return eq(str(EddystoneURLCodec.decode(scheme: uri[uri.startIndex + 2], body: uri.dropFirst(3))))
            }
            return "\(key): no URL"
        case "encoded_url_length":
            return eq(int(d.serviceData(0xFED8).map { $0.count - 2 }))
        case "direction":
            // Both directions: the bytes decode to the URL (checked under "url"); for "encode",
            // our encoder must produce exactly these bytes from the URL as written.
            guard want.string == "encode" || want.string == "decode" else { return "\(key): \(want)" }
            if want.string == "encode" {
                guard let e = EddystoneURLCodec.encode(v.expected["url"]?.string ?? "") else { return "\(key): cannot encode" }
                return [e.scheme] + e.body == v.bytes ? nil : "\(key): encoded \(Hex.string([e.scheme] + e.body))"
            }
            return nil

        // --- HCI ---------------------------------------------------------------------------
        case "bt_addr", "mac_address":
            return eq(str(lowerAddress))
        case "address_bytes_msb_first":
            return eq(str(lowerAddress.map { $0.replacingOccurrences(of: ":", with: "") }))
        case "rssi":
            if v.format == "manufacturer_data" { return eq(int(d.bluez?.rssi)) }
            if let a = d.advertisement, let r = d.report?.rssi, a.rssi != Int(r) { return "\(key): obs.ble rssi \(a.rssi)" }
            return eq(int(d.report?.rssi))
        case "event_code":
            return eq(int(d.event != nil ? HCIEventParser.leMetaEvent : nil))
        case "subevent":
            return eq(int(d.event?.subevent))
        case "num_reports":
            return eq(int(d.event?.reports.count))
        case "event_type":
            return eq(str(d.report.map { "\($0.legacyPDUName ?? "?") (0x\(Hex.string([UInt8($0.eventType)])))" }))
        case "address_type":
            return eq(int(d.report?.addressType))
        case "data_hex":
            return eq(str(d.report.map { Hex.string($0.data) }))
        case "company_id_as_reported_by_winbeacon":
            // WinBeacon reads the little-endian company id big-endian.
            return eq(int(d.manufacturer.first.map { $0.companyID.byteSwapped }))
        case "company_id":
            // ibeacon-ble: the company id given beside the data; under another id (21) the same
            // bytes must not parse.
            if BeaconDecoder.frame(companyID: 21, data: v.bytes) != nil { return "\(key): parsed under company 21" }
            return eq(int(d.beacon != nil ? v.companyID : nil))

        // --- generic AD --------------------------------------------------------------------
        case "ad_structure_count":
            return eq(int(d.ad?.structureCount))
        case "ad_types":
            return eq(.array((d.ad?.structures ?? []).map { .number(Double($0.type)) }))
        case "ad_structures":
            guard let ad = d.ad else { return "\(key): no AD" }
            return eq(.array(ad.structures.map { .string(Hex.string(ad.bytes[$0.range])) }))
        case "flags":
            return eq(int(d.ad?.flags))
        case "name", "device_name", "local_name":
            return eq(str(d.ad?.localName))
        case "name_is_complete":
            return eq(bool(d.ad?.nameIsComplete))
        case "tx_power_level":
            return eq(int(d.ad?.txPowerLevel))
        case "uuid16s":
            return eq(.array((d.ad?.serviceUUIDs ?? []).filter { $0.width == 2 }.map { .string($0.description) }))
        case "uuid128s":
            return eq(.array((d.ad?.serviceUUIDs ?? []).filter { $0.width == 16 }.map { .string($0.fullString) }))
        case "service_uuids":
            let got = (d.ad?.serviceUUIDs ?? []).map(\.fullString)
            // AOSP asserts membership (contains), not order.
            if v.sourcePrefix == "aosp", case .array(let w) = want { return got.sorted() == w.compactMap(\.string).sorted() ? nil : "\(key): \(got)" }
            return eq(.array(got.map(JSONValue.string)))
        case "service_data_hex":
            // bleson: the whole service-data value, UUID bytes included.
            guard let ad = d.ad, let s = ad.structures.first(where: { $0.type == ADType.serviceData16 }) else { return "\(key): none" }
            return eq(.string(Hex.string(ad.bytes[s.valueRange])))
        case "service_data":
            var got: [String: JSONValue] = [:]
            for s in d.serviceData { got[s.uuid.fullString] = .string(Hex.string(s.data)) }
            return eq(.object(got))
        case "manufacturer_data":
            // bdt keys by decimal company id, AOSP by 0x-hex.
            var got: [String: JSONValue] = [:]
            let hexKeys = want.object?.keys.contains { $0.hasPrefix("0x") } ?? false
            for m in d.manufacturer {
                let k = hexKeys ? "0x" + Hex.string([UInt8(m.companyID >> 8), UInt8(m.companyID & 0xFF)]) : String(m.companyID)
                got[k] = .string(Hex.string(m.data))
            }
            return eq(.object(got))
        default:
            return "unknown expected key '\(key)': map it in VectorExpectations"
        }
    }

    /// `HTTP://GOO.GL/Path` → `http://goo.gl/Path`.
    static func urlLowercasingHost(_ url: String) -> String {
        guard let sep = url.range(of: "://") else { return url }
        let rest = url[sep.upperBound...]
        let hostEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        return url[..<hostEnd].lowercased() + rest[hostEnd...]
    }
}

extension JSONValue {
    var object: [String: JSONValue]? { if case .object(let o) = self { return o }; return nil }
}

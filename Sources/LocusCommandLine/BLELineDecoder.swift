import LocusBLE
import LocusCore
import LocusFormats

/// `locus decode`'s reader for BLE lines (`BLEHexLine`): AD payloads and HCI LE advertising
/// report events as hex, one per line, into `obs.ble.<source>` observations.
struct BLELineDecoder {
    let source: String
    /// Time of lines that carry none before the first line that does.
    let fallbackTime: EventTime
    private(set) var warnings: [String] = []
    private(set) var counters: [(name: String, value: Int)] = [
        ("lines", 0), ("advertisements", 0), ("hci_events", 0), ("ad_payloads", 0), ("bad_lines", 0),
        ("no_rssi", 0), ("hci_quirks", 0), ("truncated_structures", 0), ("malformed_structures", 0),
    ]
    private var lastTime: EventTime?
    private var warnedUntimed = false, warnedNoAddress = false
    private static let maxLineWarnings = 20

    init(source: String, fallbackTime: EventTime?) {
        self.source = source
        self.fallbackTime = fallbackTime ?? EventTime(milliseconds: 0)
    }

    var summary: String { counters.map { "\($0.name)=\($0.value)" }.joined(separator: " ") }

    mutating func decode(_ input: ByteInput, emit: (RecordedObservation) throws -> Void) throws {
        var lineNumber = 0
        let overlong = try input.forEachLine { raw in
            lineNumber += 1
            let text = String(decoding: raw, as: UTF8.self)
            guard let parsed = BLEHexLine.parse(text) else { return }
            count("lines")
            switch parsed {
            case .failure(let e):
                count("bad_lines")
                if counter("bad_lines") <= Self.maxLineWarnings { warnings.append("line \(lineNumber): \(e)") }
            case .success(let line):
                try emitLine(line, emit: emit)
            }
        }
        if overlong > 0 { count("bad_lines", overlong); warnings.append("\(overlong) overlong lines skipped") }
        if counter("bad_lines") > Self.maxLineWarnings {
            warnings.append("\(counter("bad_lines") - Self.maxLineWarnings) more bad lines not shown")
        }
    }

    private mutating func emitLine(_ line: BLEHexLine, emit: (RecordedObservation) throws -> Void) throws {
        let time: EventTime
        if let t = line.time {
            time = t; lastTime = t
        } else if let t = lastTime {
            time = t
        } else {
            time = fallbackTime
            if !warnedUntimed {
                warnedUntimed = true
                warnings.append("lines without a time before the first timed one are stamped \(fallbackTime.iso8601) (--date sets the day)")
            }
        }
        let topic = "obs.ble." + source
        switch line.payload {
        case .hciEvent(let event):
            count("hci_events")
            if !event.quirks.isEmpty { count("hci_quirks") }
            for report in event.reports {
                let ad = AdvertisingData(Array(report.data))
                tally(ad)
                guard let rssi = report.rssi else { count("no_rssi"); continue }
                let obs = BLEAdvertisement(advertisingData: ad, address: report.address, addressType: report.addressKind,
                                           rssi: Int(rssi), source: source, fallbackTxPower: report.txPower.map(Int.init))
                count("advertisements")
                try emit(RecordedObservation(topic: topic, time: time, payload: .typed(obs)))
            }
        case .advertisingData(let bytes):
            count("ad_payloads")
            let ad = AdvertisingData(bytes)
            tally(ad)
            if line.address == nil, !warnedNoAddress {
                warnedNoAddress = true
                warnings.append("AD lines without ADDRESS RSSI get address 00:00:00:00:00:00 and rssi 0")
            }
            let obs = BLEAdvertisement(advertisingData: ad, address: line.address ?? BLEAddress(value: 0),
                                       addressType: line.addressType, rssi: line.rssi ?? 0, source: source)
            count("advertisements")
            try emit(RecordedObservation(topic: topic, time: time, payload: .typed(obs)))
        }
    }

    private mutating func tally(_ ad: AdvertisingData) {
        if ad.truncated != nil { count("truncated_structures") }
        if ad.malformedCount > 0 { count("malformed_structures", ad.malformedCount) }
    }

    private func counter(_ name: String) -> Int { counters.first { $0.name == name }?.value ?? 0 }
    private mutating func count(_ name: String, _ by: Int = 1) {
        if let i = counters.firstIndex(where: { $0.name == name }) { counters[i].value += by }
    }
}

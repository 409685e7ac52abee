/// Advertising data (AD) parsed into its structures: what one advertisement says about its
/// sender. Built from the raw bytes of an advertising PDU, optionally followed by the scan
/// response (as Android's `ScanRecord.getBytes()` and BlueZ's HCI reports give them).
///
/// `init(_:)` walks the bytes once and keeps offsets into `bytes`; only a detected beacon's
/// frame allocates. The list properties (`serviceUUIDs`, `manufacturerData`, `serviceData`,
/// `structures`) walk the bytes again when asked. Corrupt input never traps; the policy (README, "Corrupt advertising data") is:
/// - a zero length byte is padding: it is skipped and parsing goes on (a zero-padded PDU is
///   often followed by its scan response);
/// - a structure whose length runs past the end stops parsing: it is not interpreted, but kept
///   as `truncated` (its type and the bytes that are there) and counted;
/// - a structure of a known type with an impossible size (TX power not 1 byte, manufacturer data
///   without a whole company id, service data shorter than its UUID) is skipped and counted in
///   `malformedCount`; a UUID list keeps its whole UUIDs;
/// - single-valued fields (flags, TX power, each kind of name) keep their first occurrence; the
///   complete local name wins over the shortened one; an empty name is no name.
public struct AdvertisingData: Sendable, Equatable {
    /// One AD structure: `length type value…`.
    public struct Structure: Sendable, Equatable {
        public var type: UInt8
        /// The whole structure in `bytes`, length byte included.
        public var range: Range<Int>
        /// The value (after the type byte) in `bytes`; for `truncated`, the part that is there.
        public var valueRange: Range<Int>
    }

    /// A manufacturer-specific data block (AD type 0xFF).
    public struct ManufacturerBlock: Sendable, Equatable {
        /// Bluetooth SIG company id; little-endian on air (`4c 00` is Apple, 0x004C).
        public var companyID: UInt16
        /// The bytes after the company id.
        public var data: ArraySlice<UInt8>
    }

    /// A service data block (AD types 0x16, 0x20, 0x21).
    public struct ServiceDataBlock: Sendable, Equatable {
        public var uuid: BLEUUID
        /// The bytes after the UUID.
        public var data: ArraySlice<UInt8>
    }

    /// The input, unchanged.
    public let bytes: [UInt8]
    /// Well-formed structures (any type, including 0x00 and unknown ones).
    public let structureCount: Int
    /// Structures of a known type skipped for their size.
    public let malformedCount: Int
    /// The structure that ran past the end of `bytes`, if any; parsing stopped there.
    public let truncated: Structure?
    /// Flags (AD type 0x01), first byte.
    public let flags: UInt8?
    /// TX power level (AD type 0x0A), dBm.
    public let txPowerLevel: Int8?
    /// Value ranges of the first complete (0x09) and shortened (0x08) non-empty local names.
    public let completeNameRange: Range<Int>?
    public let shortenedNameRange: Range<Int>?
    /// Whether any service-UUID list was marked incomplete (types 0x02, 0x04, 0x06).
    public let hasIncompleteServiceUUIDList: Bool
    /// The beacon: the first manufacturer block that is an iBeacon or AltBeacon, else the first
    /// Eddystone service-data block that decodes (the order `BeaconDecoder.beacon` uses).
    public let beacon: BeaconFrame?

    /// Parses `bytes`. Never traps.
    public init(_ bytes: [UInt8]) {
        // The scan returns plain values only (no references), so nothing is retained or
        // copied through the closure; the beacon frame, which holds arrays, is built after it.
        // The stored properties are `let`s assigned once: as `var`s (optionals start as nil,
        // then get assigned) the compiler copied the whole value on return, retaining and
        // releasing its arrays; that cost as much as the parsing (`locus-bench ble`).
        let s = bytes.withUnsafeBufferPointer(Self.scan)
        var frame: BeaconFrame?
        if let kind = s.beaconKind {
            let r = s.beaconRange
            frame = bytes.withUnsafeBufferPointer { BeaconDecoder.build(kind, companyID: s.company, UnsafeBufferPointer(rebasing: $0[r])) }
        }
        self.init(bytes: bytes, scan: s, beacon: frame)
    }

    private init(bytes: [UInt8], scan s: Scan, beacon: BeaconFrame?) {
        self.bytes = bytes
        structureCount = s.count; malformedCount = s.malformed; truncated = s.truncated; flags = s.flags
        txPowerLevel = s.txPower; completeNameRange = s.complete; shortenedNameRange = s.shortened
        hasIncompleteServiceUUIDList = s.incompleteList; self.beacon = beacon
    }

    /// Parses a copy of the bytes at `buffer`.
    public init(copying buffer: UnsafeRawBufferPointer) { self.init(Array(buffer)) }

    /// True when no well-formed structure was found.
    public var isEmpty: Bool { structureCount == 0 }

    /// The local name: complete if present, else shortened. Invalid UTF-8 is replaced (U+FFFD).
    public var localName: String? {
        guard let r = completeNameRange ?? shortenedNameRange else { return nil }
        return String(decoding: bytes[r], as: UTF8.self)
    }

    /// Whether `localName` is the complete name; nil without a name.
    public var nameIsComplete: Bool? {
        completeNameRange != nil ? true : shortenedNameRange != nil ? false : nil
    }

    /// The well-formed structures in order.
    public var structures: [Structure] {
        var out: [Structure] = []
        walk { out.append($0) }
        return out
    }

    /// Service UUIDs from every list (16-, 32- and 128-bit, complete or not), in order.
    public var serviceUUIDs: [BLEUUID] {
        var out: [BLEUUID] = []
        bytes.withUnsafeBufferPointer { p in
            walk { s in
                guard s.type >= 0x02, s.type <= 0x07, let w = ADType.uuidWidth(s.type) else { return }
                var i = s.valueRange.lowerBound
                while i + w <= s.valueRange.upperBound { out.append(BLEUUID.read(p, at: i, width: w)); i += w }
            }
        }
        return out
    }

    /// Manufacturer-specific data blocks in order (blocks without a whole company id are left out).
    public var manufacturerData: [ManufacturerBlock] {
        var out: [ManufacturerBlock] = []
        walk { s in
            let v = s.valueRange
            guard s.type == ADType.manufacturerSpecific, v.count >= 2 else { return }
            out.append(ManufacturerBlock(companyID: UInt16(bytes[v.lowerBound]) | UInt16(bytes[v.lowerBound + 1]) << 8,
                                         data: bytes[(v.lowerBound + 2)..<v.upperBound]))
        }
        return out
    }

    /// Service data blocks in order (blocks shorter than their UUID are left out).
    public var serviceData: [ServiceDataBlock] {
        var out: [ServiceDataBlock] = []
        bytes.withUnsafeBufferPointer { p in
            walk { s in
                guard s.type == 0x16 || s.type == 0x20 || s.type == 0x21, let w = ADType.uuidWidth(s.type),
                      s.valueRange.count >= w else { return }
                out.append(ServiceDataBlock(uuid: BLEUUID.read(p, at: s.valueRange.lowerBound, width: w),
                                            data: bytes[(s.valueRange.lowerBound + w)..<s.valueRange.upperBound]))
            }
        }
        return out
    }

    // MARK: walking

    /// Calls `body` for each well-formed structure; returns the truncated one, if any.
    @discardableResult
    func walk(_ body: (Structure) -> Void) -> Structure? {
        bytes.withUnsafeBufferPointer { Self.walk($0, body) }
    }

    @inline(__always)
    static func walk(_ p: UnsafeBufferPointer<UInt8>, _ body: (Structure) -> Void) -> Structure? {
        var i = 0
        let n = p.count
        while i < n {
            let len = Int(p[i])
            if len == 0 { i += 1; continue } // padding
            let end = i + 1 + len
            if end > n {
                // Overlong: kept for inspection, not interpreted.
                let type = i + 1 < n ? p[i + 1] : 0
                return Structure(type: type, range: i..<n, valueRange: min(i + 2, n)..<n)
            }
            body(Structure(type: p[i + 1], range: i..<end, valueRange: (i + 2)..<end))
            i = end
        }
        return nil
    }

    /// What one pass finds: plain values only.
    struct Scan {
        var count = 0, malformed = 0
        var truncated: Structure?
        var flags: UInt8?
        var txPower: Int8?
        var complete: Range<Int>?, shortened: Range<Int>?
        var incompleteList = false
        var beaconKind: BeaconDecoder.FrameKind?
        var beaconRange = 0..<0
        var company: UInt16 = 0
    }

    /// One pass over the bytes. A plain loop rather than `walk` with a closure: this is the hot
    /// path (`locus-bench ble`).
    static func scan(_ p: UnsafeBufferPointer<UInt8>) -> Scan {
        var s = Scan()
        var i = 0
        let n = p.count
        var beaconIsManufacturer = false
        while i < n {
            let len = Int(p[i])
            if len == 0 { i += 1; continue } // padding
            let end = i + 1 + len
            if end > n {
                let type = i + 1 < n ? p[i + 1] : 0
                s.truncated = Structure(type: type, range: i..<n, valueRange: min(i + 2, n)..<n)
                return s
            }
            s.count += 1
            let v = (i + 2)..<end
            let type = p[i + 1]
            i = end
            switch type {
            case ADType.flags:
                if v.isEmpty { s.malformed += 1 } else if s.flags == nil { s.flags = p[v.lowerBound] }
            case ADType.txPowerLevel:
                if v.count != 1 { s.malformed += 1 } else if s.txPower == nil { s.txPower = Int8(bitPattern: p[v.lowerBound]) }
            case ADType.completeLocalName:
                if !v.isEmpty, s.complete == nil { s.complete = v }
            case ADType.shortenedLocalName:
                if !v.isEmpty, s.shortened == nil { s.shortened = v }
            case 0x02...0x07:
                let w = type <= 0x03 ? 2 : type <= 0x05 ? 4 : 16
                if v.count % w != 0 { s.malformed += 1 }
                if type & 1 == 0 { s.incompleteList = true }
            case ADType.manufacturerSpecific:
                guard v.count >= 2 else { s.malformed += 1; continue }
                if !beaconIsManufacturer {
                    let company = UInt16(p[v.lowerBound]) | UInt16(p[v.lowerBound + 1]) << 8
                    let data = (v.lowerBound + 2)..<v.upperBound
                    if let k = BeaconDecoder.manufacturerKind(companyID: company, UnsafeBufferPointer(rebasing: p[data])) {
                        s.beaconKind = k; s.beaconRange = data; s.company = company
                        beaconIsManufacturer = true
                    }
                }
            case ADType.serviceData16:
                guard v.count >= 2 else { s.malformed += 1; continue }
                if s.beaconKind == nil, p[v.lowerBound] == 0xAA, p[v.lowerBound + 1] == 0xFE {
                    let data = (v.lowerBound + 2)..<v.upperBound
                    if let k = BeaconDecoder.eddystoneKind(UnsafeBufferPointer(rebasing: p[data])) {
                        s.beaconKind = k; s.beaconRange = data
                    }
                }
            case ADType.serviceData32:
                if v.count < 4 { s.malformed += 1 }
            case ADType.serviceData128:
                if v.count < 16 { s.malformed += 1 }
            default:
                break
            }
        }
        return s
    }
}

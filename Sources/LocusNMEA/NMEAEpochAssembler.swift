import LocusCore

/// Merges sentences sharing a UTC time of day into one epoch and emits its `Fix` (and
/// `SkyView`) when the epoch closes: when a sentence with another time arrives, or at `flush`.
///
/// Untimed sentences (GSA, GSV, VTG, HDT) belong to the epoch open when they arrive.
/// The date comes from RMC (field 9) or ZDA (fields 2–4); between them it advances by one day
/// when the time of day falls back by more than 12 hours (midnight UTC).
public struct NMEAEpochAssembler {
    static let millisecondsPerDay = 86_400_000

    public let options: NMEADecoderOptions
    /// Decoding counters (its `framing` part stays zero: the framer keeps those).
    public private(set) var statistics = NMEAStatistics()
    /// The epoch being assembled; meaningful only while `isOpen`.
    private var epoch = NMEAEpoch(timeOfDay: -1, days: nil)
    private var isOpen = false
    /// Last known date (days since 1970) and the time of day it applies to.
    private var days: Int?
    private var lastTimeOfDay: Int?
    private var sky = NMEASkyAssembler()
    private let fallbackDays: Int?
    /// Midnights passed while no date was known (dating epochs with `fallbackDays`, or holding them).
    private var fallbackDayOffset = 0
    /// The time given by `NMEADecoder.setClock` (for `options.dateFromClock`).
    var clock: EventTime?
    /// Undated epochs held for a date (`options.holdUndatedEpochs`), oldest first from `heldStart`.
    private var held: [HeldEpoch] = []
    private var heldStart = 0

    /// An epoch closed without a date: its fix (made with times relative to the first
    /// undated day) and sky view, waiting for a date.
    struct HeldEpoch {
        var fix: Fix?
        var sky: SkyView?
        /// `undatedDay` × 1 day + time of day; a date turns it into the epoch's time.
        var relativeMilliseconds: Int64
    }

    /// An assembler with no date yet (see `NMEADecoderOptions.fallbackDate`).
    public init(options: NMEADecoderOptions = .init()) {
        self.options = options
        // Floor division: the UTC day containing the instant, also before 1970.
        let day = Int64(Self.millisecondsPerDay)
        fallbackDays = options.fallbackDate.map { t in
            Int(t.milliseconds >= 0 ? t.milliseconds / day : (t.milliseconds - day + 1) / day)
        }
    }

    /// Decodes one sentence into the current epoch, emitting the previous epoch if this one
    /// starts a new time of day.
    public mutating func handle(_ s: NMEASentenceView, emit: (NMEAObservation) -> Void) {
        let address = s.field(0)
        let talker = s.talker
        let formatter = s.formatter
        guard address.count == 5 else {
            if address.first == UInt8(ascii: "P") { statistics.proprietary += 1 } else { statistics.unsupported += 1 }
            return
        }
        if address[0] == UInt8(ascii: "P") {
            // Quectel's `PQGSA`/`PQGSV` are standard sentences with a QZSS talker, not proprietary.
            let standard = formatter == nmeaFormatter("GSA") || formatter == nmeaFormatter("GSV")
            guard talker == nmeaTalker("PQ"), standard else {
                statistics.proprietary += 1
                return
            }
        }
        switch formatter {
        case nmeaFormatter("GGA"):
            let g = GGA(s)
            guard open(g.time, positionValid: (g.quality ?? 0) > 0 && g.latitude != nil, emit: emit) else { return }
            epoch.hasPositionSentence = true
            epoch.ggaQuality = g.quality
            if let q = g.quality, q > 0, let lat = g.latitude, let lon = g.longitude {
                epoch.latitude = lat
                epoch.longitude = lon
                if let a = g.altitudeMSL { epoch.altitudeMSL = a }
                if let n = g.geoidSeparation { epoch.geoidSeparation = n }
            }
            if let n = g.satellites { epoch.satellitesUsed = n }
            if let h = g.hdop { epoch.hdop = h }
        case nmeaFormatter("RMC"):
            let r = RMC(s)
            guard open(r.time, positionValid: r.status == UInt8(ascii: "A") && r.latitude != nil, emit: emit) else { return }
            epoch.hasPositionSentence = true
            if let d = r.date { setDate(d) }
            if r.mode != nil { epoch.modeIndicator = r.mode }
            if r.status == UInt8(ascii: "A"), r.mode != NMEAModeIndicator.notValid,
               let lat = r.latitude, let lon = r.longitude {
                epoch.statusValid = true
                epoch.latitude = lat
                epoch.longitude = lon
                if let k = r.speedKnots { epoch.speed = k * NMEAUnits.metresPerSecondPerKnot }
                if let c = r.course { epoch.course = c }
            }
        case nmeaFormatter("GLL"):
            let g = GLL(s)
            guard open(g.time, positionValid: g.status != UInt8(ascii: "V") && g.latitude != nil, emit: emit) else { return }
            epoch.hasPositionSentence = true
            if g.mode != nil { epoch.modeIndicator = g.mode }
            if g.status == UInt8(ascii: "A"), g.mode != NMEAModeIndicator.notValid,
               let lat = g.latitude, let lon = g.longitude {
                epoch.statusValid = true
                epoch.latitude = lat
                epoch.longitude = lon
            }
        case nmeaFormatter("GNS"):
            let g = GNS(s)
            guard open(g.time, positionValid: g.mode != NMEAModeIndicator.notValid && g.latitude != nil, emit: emit) else { return }
            epoch.hasPositionSentence = true
            if g.mode != nil { epoch.modeIndicator = g.mode }
            if g.mode != nil, g.mode != NMEAModeIndicator.notValid, let lat = g.latitude, let lon = g.longitude {
                epoch.statusValid = true
                epoch.latitude = lat
                epoch.longitude = lon
                if let a = g.altitudeMSL { epoch.altitudeMSL = a }
                if let n = g.geoidSeparation { epoch.geoidSeparation = n }
            }
            if let n = g.satellites { epoch.satellitesUsed = n }
            if let h = g.hdop { epoch.hdop = h }
        case nmeaFormatter("ZDA"):
            let z = ZDA(s)
            guard open(z.time, positionValid: false, emit: emit) else { return }
            if let d = z.date { setDate(d) }
        case nmeaFormatter("GST"):
            let g = GST(s)
            guard open(g.time, positionValid: false, emit: emit) else { return }
            epoch.sigmaLatitude = g.sigmaLatitude
            epoch.sigmaLongitude = g.sigmaLongitude
            epoch.sigmaAltitude = g.sigmaAltitude
        case nmeaFormatter("GSA"):
            // A GSA before the first timed sentence (start of a log) goes to the first epoch.
            if !isOpen, lastTimeOfDay == nil {
                epoch = NMEAEpoch(timeOfDay: -1, days: nil)
                isOpen = true
            }
            guard attach() else { return }
            let g = GSA(s)
            if let t = g.fixType { epoch.gsaFixType = t }
            if let v = g.pdop { epoch.pdop = v }
            if let v = g.hdop { epoch.hdop = v }
            if let v = g.vdop { epoch.vdop = v }
            // A GN receiver sends one GSA per system; they add up within the epoch.
            if !epoch.sawGSA { epoch.used.removeAll(keepingCapacity: true); epoch.sawGSA = true }
            let tk = talker
            GSA.forEachPRN(s) { prn in
                let c = NMEAConstellation.of(prn: prn, talker: tk, systemId: g.systemId)
                epoch.used.append(UInt32(c.rawValue) << 16 | UInt32(truncatingIfNeeded: prn))
            }
        case nmeaFormatter("GSV"):
            guard isOpen else { statistics.outsideEpoch += 1; return }
            statistics.decoded += 1
            if options.skyViews { sky.add(s, talker: talker) }
        case nmeaFormatter("VTG"):
            guard attach() else { return }
            let v = VTG(s)
            if v.mode != NMEAModeIndicator.notValid {
                if let c = v.course { epoch.course = c }
                if let sp = v.speed { epoch.speed = sp }
            }
        case nmeaFormatter("HDT"):
            guard attach() else { return }
            if let h = HDT(s).heading { epoch.heading = h }
        case nmeaFormatter("TXT"):
            // Receiver text messages: valid, but carry nothing for a fix.
            statistics.decoded += 1
        default:
            statistics.unsupported += 1
        }
    }

    /// Closes the open epoch (end of input); epochs still waiting for a date are dropped and counted.
    public mutating func flush(emit: (NMEAObservation) -> Void) {
        if isOpen { closeEpoch(emit: emit) }
        isOpen = false
        for h in held[heldStart...] where h.fix != nil { statistics.fixesWithoutDate += 1 }
        held.removeAll()
        heldStart = 0
    }

    /// Keeps an undated epoch's fix and sky view, with its time relative to the first undated
    /// day (the 3D mode carries between held epochs by those times).
    private mutating func hold(_ e: NMEAEpoch) {
        let relative = Int64(e.undatedDay) * Int64(Self.millisecondsPerDay) + Int64(e.timeOfDay)
        var h = HeldEpoch(fix: nil, sky: nil, relativeMilliseconds: relative)
        if e.hasPositionSentence {
            var carried: Fix.Mode?
            if let l = lastMode, relative > l.at, relative - l.at <= Self.modeCarryMilliseconds { carried = l.mode }
            let f = e.fix(source: options.source, userRangeError: options.userRangeError, carried: carried)
            lastMode = (f.mode, relative)
            h.fix = f
        }
        if sky.hasComplete { h.sky = SkyView(source: options.source, satellites: sky.take(used: e.used)) } else { _ = sky.take(used: []) }
        if held.count - heldStart >= options.holdUndatedEpochs { dropOldestHeld() }
        held.append(h)
        if let seconds = options.holdUndatedSeconds {
            let oldest = relative - Int64(seconds * 1000)
            while heldStart < held.count - 1 && held[heldStart].relativeMilliseconds < oldest { dropOldestHeld() }
        }
    }

    private mutating func dropOldestHeld() {
        if held[heldStart].fix != nil { statistics.fixesWithoutDate += 1 }
        heldStart += 1
        // Compacted now and then, not per epoch.
        if heldStart >= 1024 && heldStart * 2 >= held.count {
            held.removeFirst(heldStart)
            heldStart = 0
        }
    }

    /// Of the clock's UTC day and the days either side, the one that puts `timeOfDay` nearest
    /// the clock.
    static func nearestDay(timeOfDay: Int, to clock: EventTime) -> Int {
        let dayMs = Int64(millisecondsPerDay)
        let today = Int(clock.milliseconds >= 0 ? clock.milliseconds / dayMs : (clock.milliseconds - dayMs + 1) / dayMs)
        return [today - 1, today, today + 1].min { a, b in
            abs(Int64(a) * dayMs + Int64(timeOfDay) - clock.milliseconds) < abs(Int64(b) * dayMs + Int64(timeOfDay) - clock.milliseconds)
        }!
    }

    /// Emits the held epochs, dated by `setDate` (the first date after them).
    private mutating func releaseHeld(emit: (NMEAObservation) -> Void) {
        guard heldStart < held.count else { return }
        for h in held[heldStart...] {
            let t = EventTime(milliseconds: h.relativeMilliseconds)
            if let f = h.fix {
                statistics.fixes += 1
                statistics.fixesDatedBackwards += 1
                emit(.fix(f, t))
            }
            if let sky = h.sky {
                statistics.skyViews += 1
                emit(.sky(sky, t))
            }
        }
        held.removeAll()
        heldStart = 0
    }

    // MARK: - Epochs

    /// Makes `epoch` the epoch of a timed sentence, closing the open one when the time
    /// differs; false when the sentence is to be ignored. A sentence whose time field is empty
    /// or unreadable joins the open epoch only if it has a valid position (NMEA 2.0 GLL has no
    /// time field); an untimed "no fix" report (receivers send `$GPGGA,,,,,,0,…` when they lose
    /// lock) is ignored rather than spoiling the last epoch.
    ///
    /// The epoch is updated in place (it is large; copying it out and back for every sentence
    /// was a measurable part of decoding).
    private mutating func open(_ time: Int?, positionValid: Bool, emit: (NMEAObservation) -> Void) -> Bool {
        guard let time else {
            guard positionValid else {
                statistics.decoded += 1 // a "no fix" report: read, and rightly ignored
                return false
            }
            guard isOpen else {
                statistics.outsideEpoch += 1
                return false
            }
            statistics.decoded += 1
            return true
        }
        statistics.decoded += 1
        if isOpen {
            if epoch.timeOfDay == time { return true }
            if epoch.timeOfDay < 0 {
                // The placeholder holding a leading GSA becomes the first real epoch.
                epoch.timeOfDay = time
                epoch.days = days
                lastTimeOfDay = time
                return true
            }
            closeEpoch(emit: emit)
        }
        if let last = lastTimeOfDay, time < last - Self.millisecondsPerDay / 2 {
            // Past midnight: the next day, for the received date or else the fallback one.
            if days != nil { days! += 1 } else { fallbackDayOffset += 1 }
            statistics.midnightRollovers += 1
        }
        lastTimeOfDay = time
        // Keep the satellites-used list across epochs until a new GSA replaces it.
        var used: [UInt32] = []
        swap(&used, &epoch.used)
        epoch = NMEAEpoch(timeOfDay: time, days: days)
        epoch.undatedDay = fallbackDayOffset
        swap(&used, &epoch.used)
        isOpen = true
        return true
    }

    /// Mode and time (ms since 1970) of the last fix, for `NMEAEpoch.mode(carried:)`.
    private var lastMode: (mode: Fix.Mode, at: Int64)?
    /// How long a 3D mode carries into epochs without altitude.
    static let modeCarryMilliseconds: Int64 = 10_000

    /// Whether an untimed sentence has an epoch to go to (counted either way).
    private mutating func attach() -> Bool {
        guard isOpen else {
            statistics.outsideEpoch += 1
            return false
        }
        statistics.decoded += 1
        return true
    }

    private mutating func setDate(_ d: Int) {
        statistics.datesSeen += 1
        if days == nil && heldStart < held.count {
            // Day 0 of the undated epochs is `undatedDay` days before this one's.
            let shift = Int64(d - epoch.undatedDay) * Int64(Self.millisecondsPerDay)
            for i in heldStart..<held.count { held[i].relativeMilliseconds += shift }
            if let l = lastMode { lastMode = (l.mode, l.at + shift) }
        }
        epoch.days = d
        days = d
        lastTimeOfDay = epoch.timeOfDay
    }

    /// Test hook: the GSA fix type (field 2) behind each emitted fix, by fix time (ms).
    var gsaFixTypeObserver: ((Int64, Int?) -> Void)?

    /// Emits the open epoch's fix and sky view (the caller marks it closed).
    private mutating func closeEpoch(emit: (NMEAObservation) -> Void) {
        let e = epoch
        guard e.timeOfDay >= 0 else { return } // a leading GSA and nothing after it
        var day = e.days
        if day == nil, let f = fallbackDays {
            day = f + fallbackDayOffset
            if e.hasPositionSentence || sky.hasComplete { statistics.fixesWithFallbackDate += 1 }
        }
        if day == nil, options.dateFromClock, let clock {
            day = Self.nearestDay(timeOfDay: e.timeOfDay, to: clock)
            if e.hasPositionSentence { statistics.fixesWithClockDate += 1 }
        }
        guard let day else {
            if options.holdUndatedEpochs > 0 && (e.hasPositionSentence || sky.hasComplete) {
                hold(e)
            } else {
                if e.hasPositionSentence { statistics.fixesWithoutDate += 1 }
                _ = sky.take(used: [])
            }
            return
        }
        releaseHeld(emit: emit)
        let t = EventTime(milliseconds: Int64(day) * Int64(Self.millisecondsPerDay) + Int64(e.timeOfDay))
        if e.hasPositionSentence {
            var carried: Fix.Mode?
            if let l = lastMode, t.milliseconds > l.at, t.milliseconds - l.at <= Self.modeCarryMilliseconds { carried = l.mode }
            let f = e.fix(source: options.source, userRangeError: options.userRangeError, carried: carried)
            lastMode = (f.mode, t.milliseconds)
            gsaFixTypeObserver?(t.milliseconds, e.gsaFixType)
            statistics.fixes += 1
            emit(.fix(f, t))
        }
        if sky.hasComplete {
            statistics.skyViews += 1
            emit(.sky(SkyView(source: options.source, satellites: sky.take(used: e.used)), t))
        }
    }
}

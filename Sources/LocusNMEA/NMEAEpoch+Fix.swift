import LocusCore

extension NMEAEpoch {
    /// The fix mode. A valid GGA/GNS with an altitude makes it 3D, except when the GSA fix type
    /// (field 2) says 2D and at most 3 satellites are used: such an altitude is an assumed one
    /// (a 3D solution needs 4). Receivers that write GSA `2` while using 5–14 satellites and
    /// reporting VDOP (Quectel, Telit) are taken as 3D, as gpsd does. Without an altitude: GSA
    /// fix type 3/2, else GGA quality or RMC/GLL status give 2D. Never 2D/3D without a position.
    ///
    /// `carried` is the previous epoch's mode (when recent): an epoch with only RMC/GLL (valid,
    /// no altitude) keeps a 3D mode from it, as gpsd does, because many receivers send GGA/GSA
    /// less often than RMC; anything reporting "no fix" ends it.
    func mode(carried: Fix.Mode?) -> Fix.Mode {
        guard latitude != nil, longitude != nil else { return .none }
        if ggaQuality == 0 { return .none }
        let satellites = sawGSA && !used.isEmpty ? used.count : satellitesUsed
        let altitudeAssumed = gsaFixType == 2 && (satellites.map { $0 <= 3 } ?? true)
        if altitudeMSL != nil { return altitudeAssumed ? .twoD : .threeD }
        if gsaFixType == 3 { return .threeD }
        if gsaFixType == 2 || (ggaQuality ?? 0) > 0 { return .twoD }
        if modeIndicator == NMEAModeIndicator.notValid { return .none }
        if statusValid || modeIndicator != nil { return carried == .threeD ? .threeD : .twoD }
        return .none
    }

    func fix(source: String, userRangeError uere: Double, carried: Fix.Mode?) -> Fix {
        let m = mode(carried: carried)
        var f = Fix(source: source, mode: m)
        if m != .none {
            f.latitude = latitude
            f.longitude = longitude
            f.altitudeMSL = altitudeMSL
            if let a = altitudeMSL, let n = geoidSeparation { f.altitudeHAE = a + n }
            if m == .twoD { f.altitudeMSL = nil; f.altitudeHAE = nil }
        }
        f.speed = speed
        f.course = course
        f.heading = heading
        f.quality = NMEAModeIndicator.quality(gga: ggaQuality) ?? NMEAModeIndicator.quality(modeIndicator)
        if m == .none { f.quality = nil }
        // The larger of GGA's count and the GSAs' list: a multi-system receiver may end an epoch
        // with a system's own GGA (`$GLGGA` counting GLONASS alone) while its GSAs add up to all
        // systems; a GSA lists at most 12, so a GGA may count more.
        let listed = sawGSA && !used.isEmpty ? used.count : nil
        f.satellitesUsed = [satellitesUsed, listed].compactMap { $0 }.max()
        f.hdop = hdop
        f.vdop = vdop
        f.pdop = pdop
        // GST gives 1-sigma errors per axis; the horizontal radius is their root sum square.
        if let a = sigmaLatitude, let b = sigmaLongitude {
            f.horizontalAccuracy = (a * a + b * b).squareRoot()
        } else if let h = hdop {
            f.horizontalAccuracy = h * uere
        }
        if let v = sigmaAltitude { f.verticalAccuracy = v } else if let v = vdop { f.verticalAccuracy = v * uere }
        return f
    }
}

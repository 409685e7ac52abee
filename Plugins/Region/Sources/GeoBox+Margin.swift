import LocusConditions
import Foundation
import LocusRegions

extension GeoBox {
    /// The box grown by `metres` on every side (conservatively: never less), wrapping at the
    /// antimeridian and widening to all longitudes near the poles.
    func expanded(byMetres metres: Double) -> GeoBox {
        // 110,574 m is the shortest degree of latitude (at the equator); dividing by less than
        // the true length only makes the margin larger.
        let dLat = metres / 110_574
        let minLat = max(-90, minLatitude - dLat)
        let maxLat = min(90, maxLatitude + dLat)
        let widestLat = max(abs(minLat), abs(maxLat))
        let cosine = cos(widestLat * .pi / 180)
        let span = crossesAntimeridian ? maxLongitude + 360 - minLongitude : maxLongitude - minLongitude
        guard cosine > 1e-3 else { return GeoBox(minLatitude: minLat, maxLatitude: maxLat, minLongitude: -180, maxLongitude: 180) }
        // 111,320 m per degree of longitude at the equator, scaled by the widest latitude's cosine.
        let dLon = metres / (111_320 * cosine)
        if span + 2 * dLon >= 360 {
            return GeoBox(minLatitude: minLat, maxLatitude: maxLat, minLongitude: -180, maxLongitude: 180)
        }
        var lo = minLongitude - dLon
        var hi = maxLongitude + dLon
        if lo < -180 { lo += 360 }
        if hi > 180 { hi -= 360 }
        return GeoBox(minLatitude: minLat, maxLatitude: maxLat, minLongitude: lo, maxLongitude: hi)
    }
}

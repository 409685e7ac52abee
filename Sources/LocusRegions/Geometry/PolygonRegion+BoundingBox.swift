extension PolygonRegion {
    /// The smallest longitude arc covering all polygons (each polygon's extent can sit in a
    /// different 360° frame, e.g. parts on both sides of the antimeridian), with their
    /// latitude range; all longitudes when no gap is left.
    static func box(of polygons: [Polygon]) -> GeoBox {
        guard let first = polygons.first else {
            return GeoBox(minLatitude: 0, maxLatitude: 0, minLongitude: 0, maxLongitude: 0)
        }
        var minY = first.minY, maxY = first.maxY
        // Longitude extents of parts may sit in different 360° frames; put them on a circle
        // and take the smallest arc covering all: sort by start, find the largest gap.
        var arcs: [(Double, Double)] = []
        for p in polygons {
            minY = min(minY, p.minY); maxY = max(maxY, p.maxY)
            if p.maxX - p.minX >= 360 { return GeoBox(minLatitude: minY, maxLatitude: maxY, minLongitude: -180, maxLongitude: 180) }
            let s = normalizedLongitude(p.minX)
            arcs.append((s, s + (p.maxX - p.minX)))
        }
        arcs.sort { $0.0 < $1.0 }
        // Merge overlapping arcs (on the unrolled line, then the wrap-around).
        var merged: [(Double, Double)] = []
        for arc in arcs {
            if let last = merged.last, arc.0 <= last.1 { merged[merged.count - 1].1 = max(last.1, arc.1) }
            else { merged.append(arc) }
        }
        // The box is the complement of the largest gap between consecutive merged arcs.
        var bestGap = -1.0, bestStart = merged[0].0, bestEnd = merged[0].1
        for i in merged.indices {
            let end = merged[i].1
            let nextStart = i + 1 < merged.count ? merged[i + 1].0 : merged[0].0 + 360
            let gap = nextStart - end
            if gap > bestGap { bestGap = gap; bestStart = nextStart; bestEnd = end }
        }
        if bestGap <= 0 { return GeoBox(minLatitude: minY, maxLatitude: maxY, minLongitude: -180, maxLongitude: 180) }
        // The covering arc runs from the start after the gap round to the end before it.
        let minLon = normalizedLongitude(bestStart)
        var maxLon = normalizedLongitude(bestEnd)
        if maxLon == -180 { maxLon = 180 }  // an arc ending exactly on the antimeridian
        return GeoBox(minLatitude: minY, maxLatitude: maxY, minLongitude: minLon, maxLongitude: maxLon)
    }
}

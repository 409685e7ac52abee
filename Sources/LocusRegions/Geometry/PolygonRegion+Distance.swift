import Foundation
import LocusCore

extension PolygonRegion {
    /// Signed distance from `c` to the nearest edge of any ring (holes included), metres:
    /// negative inside (per `contains`), positive outside, exactly 0 on the boundary.
    ///
    /// Method: the edges are projected into a local equirectangular plane centred on `c`,
    /// scaled by the WGS-84 meridional and prime-vertical radii of curvature at `c`'s
    /// latitude. That projection is affine in lon/lat, so the straight lon/lat edges stay
    /// straight and the nearest point of each edge is found exactly in the plane. The
    /// distance to the nearest point found is then measured with Karney's `Geodesic`, so the
    /// result is a true ground distance to a boundary point: never less than the true
    /// distance to the boundary, and larger only when the projection picks a slightly wrong
    /// nearest point. Measured against a geodesic reference (GeometryDistanceAccuracyTests):
    /// at 45–60° latitude about 1 µm at 1 km, 1 mm at 10 km and 2 cm at 30 km from the edge;
    /// at 78°, 30 µm, 3 cm and 0.7 m. The error grows roughly with the cube of the distance
    /// and with latitude: exact enough for hysteresis near a boundary, approximate far away.
    ///
    /// Cost: O(edges) plus one geodesic inverse; it allocates nothing. Not for the
    /// per-fix hot path of every region, only for regions a fix is near (events, hysteresis).
    public func signedDistance(to c: Coordinate) -> Double {
        let lat = c.latitude * .pi / 180
        let e2 = Geodesic.flattening * (2 - Geodesic.flattening)
        let w2 = 1 - e2 * sin(lat) * sin(lat)
        let primeVertical = Geodesic.equatorialRadius / w2.squareRoot()
        let meridional = primeVertical * (1 - e2) / w2
        // Metres per degree at c.
        // At a pole cos(lat) is 0 and the plane degenerates; a floor keeps the result a finite
        // (if poorly chosen) boundary point. Vertices are within ±85°, so only queries get here.
        let kx = primeVertical * max(cos(lat), 1e-9) * .pi / 180
        let ky = meridional * .pi / 180
        var best = Double.infinity
        var nearest = PlanePoint(x: c.longitude, y: c.latitude)
        vertices.withUnsafeBufferPointer { v in
            for ring in rings {
                // Put c in this ring's longitude frame: the frame within 180° of the ring's centre.
                let centre = (ring.minX + ring.maxX) / 2
                let qx = c.longitude - 360 * ((c.longitude - centre) / 360).rounded()
                var a = PlanePoint(x: (v[ring.start].x - qx) * kx, y: (v[ring.start].y - c.latitude) * ky)
                for i in ring.start + 1 ..< ring.end {
                    let b = PlanePoint(x: (v[i].x - qx) * kx, y: (v[i].y - c.latitude) * ky)
                    // Nearest point of segment a–b to the origin (the query).
                    let dx = b.x - a.x, dy = b.y - a.y
                    let length2 = dx * dx + dy * dy
                    var t = length2 > 0 ? -(a.x * dx + a.y * dy) / length2 : 0
                    t = min(max(t, 0), 1)
                    let px = a.x + t * dx, py = a.y + t * dy
                    let d2 = px * px + py * py
                    if d2 < best {
                        best = d2
                        nearest = PlanePoint(x: qx + px / kx, y: c.latitude + py / ky)
                    }
                    a = b
                }
            }
        }
        let location = location(of: c)
        // Exactly on an edge by the lon/lat test: 0, whatever rounding the projection left.
        if location == .boundary { return 0 }
        let distance = Geodesic.distance(from: c, to: Coordinate(latitude: nearest.y, longitude: nearest.x))
        return location == .inside ? -distance : distance
    }
}

import Foundation

/// The data set of `../shared/bench/geofence_bench.py gen`, loaded from its three CSV files:
/// `circles.csv` (id,lat,lon,radius_m), `polygons.csv` (id,n,"lat lon;lat lon;…", ring not
/// closed) and `points.csv` (lat,lon). Region ids follow the script: circles 0..<circles,
/// polygons after them.
struct GeofenceData {
    var circleLatitudes: [Double] = [], circleLongitudes: [Double] = [], circleRadii: [Double] = []
    /// Vertices of every polygon, one after another; polygon i is `polygonStarts[i]..<polygonStarts[i+1]`.
    var vertexLatitudes: [Double] = [], vertexLongitudes: [Double] = []
    var polygonStarts: [Int] = [0]
    var pointLatitudes: [Double] = [], pointLongitudes: [Double] = []

    var circleCount: Int { circleRadii.count }
    var polygonCount: Int { polygonStarts.count - 1 }

    init(directory: String) throws {
        try CSVNumbers.forEachLine(of: directory + "/circles.csv") { numbers in
            guard numbers.count == 4 else { throw GeofenceDataError.badLine("circles.csv") }
            circleLatitudes.append(numbers[1]); circleLongitudes.append(numbers[2]); circleRadii.append(numbers[3])
        }
        try CSVNumbers.forEachLine(of: directory + "/polygons.csv") { numbers in
            // id, n, then n (lat, lon) pairs: the separators ' ' and ';' both split numbers.
            guard numbers.count >= 2, numbers.count == 2 + 2 * Int(numbers[1]) else { throw GeofenceDataError.badLine("polygons.csv") }
            for i in stride(from: 2, to: numbers.count, by: 2) {
                vertexLatitudes.append(numbers[i]); vertexLongitudes.append(numbers[i + 1])
            }
            polygonStarts.append(vertexLatitudes.count)
        }
        pointLatitudes.reserveCapacity(1_000_000); pointLongitudes.reserveCapacity(1_000_000)
        try CSVNumbers.forEachLine(of: directory + "/points.csv") { numbers in
            guard numbers.count == 2 else { throw GeofenceDataError.badLine("points.csv") }
            pointLatitudes.append(numbers[0]); pointLongitudes.append(numbers[1])
        }
    }
}

enum GeofenceDataError: Error { case badLine(String), unreadable(String) }

/// Numbers of a CSV-like file, line by line, header skipped. Parsed with `strtod`, which rounds
/// correctly like numpy's loader, so coordinates are bit-identical to shapely's inputs.
enum CSVNumbers {
    static func forEachLine(of path: String, _ body: ([Double]) throws -> Void) throws {
        guard var bytes = FileManager.default.contents(atPath: path).map({ [UInt8]($0) }) else {
            throw GeofenceDataError.unreadable(path)
        }
        bytes.append(0)
        var numbers: [Double] = []
        try bytes.withUnsafeMutableBufferPointer { buffer in
            let base = UnsafeMutableRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            var p = base
            while p.pointee != 0 && p.pointee != 10 && p.pointee != 13 { p += 1 }  // header
            while p.pointee != 0 {
                p += 1  // the CR or LF ending the previous line
                numbers.removeAll(keepingCapacity: true)
                // Stop at CR too: Python's csv module ends lines with CRLF, and strtod would
                // skip a CR (whitespace) into the next line.
                while p.pointee != 0 && p.pointee != 10 && p.pointee != 13 {
                    var end: UnsafeMutablePointer<CChar>? = nil
                    let value = strtod(p, &end)
                    if end == p { p += 1; continue }  // a separator: , ; or space
                    numbers.append(value)
                    p = end!
                }
                if !numbers.isEmpty { try body(numbers) }
            }
        }
    }
}

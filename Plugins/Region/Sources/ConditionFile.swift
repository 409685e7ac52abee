import Foundation
import LocusCore
import LocusRegions

/// The GeoJSON `file:` of a region service: loaded at start, then checked for changes (size,
/// modification time, inode) and reloaded when it changed.
struct ConditionFile {
    let path: String
    private var signature: Signature?

    struct Signature: Equatable {
        var size: Int64
        var modified: timespec
        var inode: UInt64

        static func == (a: Signature, b: Signature) -> Bool {
            a.size == b.size && a.inode == b.inode && a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec
        }
    }

    init(path: String) {
        self.path = path
    }

    /// Loads the file now and remembers its signature.
    mutating func load() throws -> [RegionCondition] {
        let current = Self.signature(of: path)
        let conditions = try Self.read(path)
        signature = current
        return conditions
    }

    /// The file's conditions if it changed since the last load (or the last failed attempt);
    /// nil if it did not. A file that no longer loads throws, once per change.
    mutating func reloadIfChanged() throws -> [RegionCondition]? {
        let current = Self.signature(of: path)
        guard current != signature else { return nil }
        signature = current
        return try Self.read(path)
    }

    static func read(_ path: String) throws -> [RegionCondition] {
        let definitions = try GeoJSONRegionLoader.load(contentsOf: URL(fileURLWithPath: path))
        return try definitions.enumerated().map { index, d in
            try condition(d, index: index)
        }
    }

    /// A feature's condition: options come from its properties, the rest are echoed.
    static func condition(_ d: RegionDefinition, index: Int) throws -> RegionCondition {
        var properties = d.properties
        func take(_ key: String) -> JSONValue? { properties.removeValue(forKey: key) }
        func fail(_ reason: String) -> RegionGeometryError {
            RegionGeometryError(.invalidGeoJSON, reason, featureIndex: index, featureID: d.id)
        }
        var entry = true, exit = true
        var dwell: Double?
        if let v = take("notify_on_entry") { guard case .bool(let b) = v else { throw fail("properties.notify_on_entry must be true or false") }; entry = b }
        if let v = take("notify_on_exit") { guard case .bool(let b) = v else { throw fail("properties.notify_on_exit must be true or false") }; exit = b }
        if let v = take("dwell") { guard let n = v.doubleValue else { throw fail("properties.dwell must be seconds") }; dwell = n }
        // The file's geometry as given, so records and fingerprints show what the file says.
        var geometry = d.geometry ?? .null
        var radius: Double?
        if case .circle(let c) = d.shape {
            radius = c.radius
            if d.geometry == nil {
                geometry = .object(["type": .string("Point"), "coordinates": .array([.number(c.center.longitude), .number(c.center.latitude)])])
            }
        }
        do {
            return try RegionCondition(id: d.id, geometry: geometry, radius: radius, notifyOnEntry: entry, notifyOnExit: exit,
                                       dwell: dwell, properties: properties, origin: .file)
        } catch var e as RegionGeometryError {
            e.featureIndex = index
            throw e
        }
    }

    static func signature(of path: String) -> Signature? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return Signature(size: Int64(st.st_size), modified: st.st_mtim, inode: UInt64(st.st_ino))
    }
}

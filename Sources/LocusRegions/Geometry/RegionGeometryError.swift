/// Why a region's geometry was rejected: what is wrong, and in which feature of which file.
///
/// `description` reads like `feature 3 (id "depot"): ring 0 is not closed` so that a user can
/// find and fix the feature; `code` lets callers and tests tell the reasons apart.
public struct RegionGeometryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of problem.
    public enum Code: String, Sendable, Equatable {
        /// A ring's first and last positions differ (RFC 7946 §3.1.6 requires them equal).
        case ringNotClosed
        /// A ring has fewer than 4 positions (a closed triangle needs 4).
        case tooFewPositions
        /// Two edges of one ring cross or touch, other than neighbours sharing their vertex.
        case selfIntersection
        /// A hole has a vertex outside (or on) its polygon's outer ring.
        case holeOutsideOuterRing
        /// A hole's edge crosses or touches the outer ring.
        case holeIntersectsOuterRing
        /// Two holes of one polygon cross or touch.
        case holesIntersect
        /// A latitude outside [-90, 90], or a non-finite coordinate.
        case invalidPosition
        /// A polygon vertex beyond ±`PolygonRegion.maximumAbsoluteLatitude`.
        case tooCloseToPole
        /// A ring that winds around a pole, or spans 360° of longitude.
        case enclosesPole
        /// A circle with a non-positive or non-finite radius, or an invalid centre.
        case invalidCircle
        /// The document is not GeoJSON this loader understands (bad JSON, wrong structure).
        case invalidGeoJSON
        /// A geometry type other than Point (with a radius), Polygon and MultiPolygon.
        case unsupportedGeometry
        /// A feature without `id` or `properties.id`.
        case missingID
        /// Two features with the same id.
        case duplicateID
    }

    public var code: Code
    /// Index of the feature in the FeatureCollection's `features` array, when loading a file.
    public var featureIndex: Int?
    /// The feature's id, when it has one.
    public var featureID: String?
    /// What is wrong, in words (without the feature prefix).
    public var reason: String
    /// The key of the definition whose value is wrong (`radius`, `center.lat`), when it is one
    /// key's: a config error then points at that value's line, not at the region's.
    public var key: String?

    public init(_ code: Code, _ reason: String, featureIndex: Int? = nil, featureID: String? = nil, key: String? = nil) {
        self.code = code
        self.reason = reason
        self.featureIndex = featureIndex
        self.featureID = featureID
        self.key = key
    }

    public var description: String {
        switch (featureIndex, featureID) {
        case let (index?, id?): "feature \(index) (id \"\(id)\"): \(reason)"
        case let (index?, nil): "feature \(index): \(reason)"
        case let (nil, id?): "region \"\(id)\": \(reason)"
        case (nil, nil): reason
        }
    }

    /// The same error, located in a feature of a file.
    func located(featureIndex: Int, featureID: String?) -> RegionGeometryError {
        var copy = self
        copy.featureIndex = featureIndex
        copy.featureID = featureID
        return copy
    }
}

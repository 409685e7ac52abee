/// The map page's files, served from the binary: `Plugins/Web/Resources/`, which SwiftPM embeds
/// in code (`.embedInCode`, Package.swift) as `PackageResources`, so `locus` serves the page
/// with nothing installed beside it. A file added there needs its line here (and a type);
/// `WebGatewayUnitTests` checks every file is served, byte for byte.
enum PageAssets {
    static let files: [String: (contentType: String, bytes: [UInt8])] = [
        "index.html": ("text/html; charset=utf-8", PackageResources.index_html),
        "map.css": ("text/css; charset=utf-8", PackageResources.map_css),
        "map.js": ("text/javascript; charset=utf-8", PackageResources.map_js),
    ]
}

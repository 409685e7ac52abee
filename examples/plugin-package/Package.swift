// swift-tools-version:6.0
import Foundation
import PackageDescription

// Where Locus is. Your own package would say instead:
//     .package(url: "https://example.org/locus.git", from: "0.1.0")
// and name products with `package: "locus"`.
let locusPath = "../.."
// SwiftPM names a path dependency after its directory, whatever the clone is called.
let locus = URL(fileURLWithPath: locusPath, relativeTo: URL(fileURLWithPath: Context.packageDirectory + "/"))
    .standardizedFileURL.lastPathComponent.lowercased()

let package = Package(
    name: "plugin-package",
    platforms: [.macOS(.v13)],
    products: [
        // A `locus` binary with every built-in command and plugin, plus `odometer`.
        .executable(name: "locus-odometer", targets: ["LocusWithOdometer"]),
        .library(name: "Odometer", targets: ["Odometer"]),
    ],
    dependencies: [
        .package(path: locusPath),
    ],
    targets: [
        .target(name: "Odometer", dependencies: [.product(name: "LocusCore", package: locus)]),
        .executableTarget(
            name: "LocusWithOdometer",
            dependencies: ["Odometer", .product(name: "LocusCommandLine", package: locus)]
        ),
        .testTarget(
            name: "OdometerTests",
            dependencies: ["Odometer", .product(name: "LocusCore", package: locus), .product(name: "LocusTestKit", package: locus)],
            resources: [.copy("Golden")]
        ),
    ]
)

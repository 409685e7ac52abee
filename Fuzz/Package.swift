// swift-tools-version:6.0
import PackageDescription

/// libFuzzer target for the NMEA 0183 decoder. A package of its own because the executable only
/// links with `-sanitize=fuzzer` (which brings libFuzzer's runtime), so the root package's plain
/// `swift build` must not see it. Build and run it with `Fuzz/run-fuzz.sh`; see README.md.
let package = Package(
    name: "LocusFuzz",
    products: [
        .executable(name: "locus-nmea-fuzz", targets: ["LocusNMEAFuzz"]),
    ],
    dependencies: [
        .package(name: "Locus", path: ".."),
    ],
    targets: [
        .systemLibrary(name: "CLibFuzzer"),
        .executableTarget(
            name: "LocusNMEAFuzz",
            dependencies: [
                "CLibFuzzer",
                .product(name: "LocusNMEA", package: "Locus"),
                .product(name: "LocusCore", package: "Locus"),
            ]
        ),
    ],
    swiftLanguageModes: [.v5]
)

// swift-tools-version:6.0
import PackageDescription

/// libFuzzer targets for Locus's readers of outside bytes: the NMEA 0183 decoder and the
/// recording readers (GPX, gpsd JSON, Locus recordings), the journal's record reader and the catch-up socket's request parser. A package of its own because the
/// executables only link with `-sanitize=fuzzer` (which brings libFuzzer's runtime), so the root
/// package's plain `swift build` must not see them. Build and run with `Fuzz/run-fuzz.sh`; see
/// README.md.
let readers: [(product: String, target: String)] = [
    ("locus-gpx-fuzz", "LocusGPXFuzz"),
    ("locus-gpsd-fuzz", "LocusGpsdFuzz"),
    ("locus-recording-fuzz", "LocusRecordingFuzz"),
]

let package = Package(
    name: "LocusFuzz",
    products: [
        .executable(name: "locus-nmea-fuzz", targets: ["LocusNMEAFuzz"]),
        .executable(name: "locus-journal-fuzz", targets: ["LocusJournalFuzz"]),
        .executable(name: "locus-catchup-fuzz", targets: ["LocusCatchupFuzz"]),
    ] + readers.map { .executable(name: $0.product, targets: [$0.target]) },
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
        .executableTarget(
            name: "LocusJournalFuzz",
            dependencies: ["CLibFuzzer", .product(name: "LocusStore", package: "Locus")]
        ),
        .executableTarget(
            name: "LocusCatchupFuzz",
            dependencies: ["CLibFuzzer", .product(name: "LocusStore", package: "Locus")]
        ),
        .target(
            name: "LocusReaderFuzzSupport",
            dependencies: [
                .product(name: "LocusFormats", package: "Locus"),
                .product(name: "LocusCore", package: "Locus"),
            ]
        ),
    ] + readers.map {
        .executableTarget(
            name: $0.target,
            dependencies: [
                "CLibFuzzer", "LocusReaderFuzzSupport",
                .product(name: "LocusFormats", package: "Locus"),
            ]
        )
    },
    swiftLanguageModes: [.v5]
)

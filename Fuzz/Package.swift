// swift-tools-version:6.0
import PackageDescription

/// libFuzzer targets for Locus's readers of outside bytes: the NMEA 0183 decoder and the
/// recording readers (GPX, gpsd JSON, Locus recordings), the journal's record reader, the catch-up socket's request parser,
/// control requests (with the region service's commands), envelopes and payloads at the hub (and their precision
/// reduction), CURVE certificate files, MQTT messages (the mqtt source's reader, the sink's OwnTracks form), and what web clients
/// send: requests (queries, WebSocket requests), request heads and WebSocket frames, the records of a service state store,
/// a region service's watched GeoJSON file, and what a fleet server reads from NATS (leases, partition positions,
/// stream messages), and what a gpsd client sends the gpsd-server sink. A package of its own because the
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
        .executable(name: "locus-control-fuzz", targets: ["LocusControlFuzz"]),
        .executable(name: "locus-envelope-fuzz", targets: ["LocusEnvelopeFuzz"]),
        .executable(name: "locus-certificate-fuzz", targets: ["LocusCertificateFuzz"]),
        .executable(name: "locus-mqtt-fuzz", targets: ["LocusMQTTFuzz"]),
        .executable(name: "locus-web-fuzz", targets: ["LocusWebFuzz"]),
        .executable(name: "locus-webhead-fuzz", targets: ["LocusWebHeadFuzz"]),
        .executable(name: "locus-webframe-fuzz", targets: ["LocusWebFrameFuzz"]),
        .executable(name: "locus-state-fuzz", targets: ["LocusStateFuzz"]),
        .executable(name: "locus-geojson-fuzz", targets: ["LocusGeoJSONFuzz"]),
        .executable(name: "locus-fleet-fuzz", targets: ["LocusFleetFuzz"]),
        .executable(name: "locus-gpsdserver-fuzz", targets: ["LocusGpsdServerFuzz"]),
    ] + readers.map { .executable(name: $0.product, targets: [$0.target]) },
    dependencies: [
        .package(name: "Locus", path: ".."),
        // The web gateway's targets run NIO's HTTP/1 and WebSocket decoders on an EmbeddedChannel
        // (the same package Locus's web sink builds on).
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
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
            name: "LocusGpsdServerFuzz",
            dependencies: ["CLibFuzzer", .product(name: "LocusFormats", package: "Locus"), .product(name: "LocusCore", package: "Locus")]
        ),
        .executableTarget(
            name: "LocusCatchupFuzz",
            dependencies: ["CLibFuzzer", .product(name: "LocusStore", package: "Locus")]
        ),
        .executableTarget(
            name: "LocusControlFuzz",
            // LocusCommandLine brings every built-in plugin, the region service among them.
            dependencies: ["CLibFuzzer", .product(name: "LocusCommandLine", package: "Locus"), .product(name: "LocusBus", package: "Locus")]
        ),
        .executableTarget(
            name: "LocusEnvelopeFuzz",
            dependencies: ["CLibFuzzer", .product(name: "LocusBus", package: "Locus"), .product(name: "LocusCore", package: "Locus")]
        ),
        .executableTarget(
            name: "LocusStateFuzz",
            // LocusCommandLine brings every built-in plugin, the region service among them.
            dependencies: ["CLibFuzzer", .product(name: "LocusCommandLine", package: "Locus"), .product(name: "LocusCore", package: "Locus"),
                           .product(name: "LocusStore", package: "Locus"), .product(name: "LocusRuntime", package: "Locus")]
        ),
        .executableTarget(
            name: "LocusGeoJSONFuzz",
            // LocusCommandLine brings every built-in plugin, the region service among them.
            dependencies: ["CLibFuzzer", .product(name: "LocusCommandLine", package: "Locus"), .product(name: "LocusCore", package: "Locus")]
        ),
        .executableTarget(
            name: "LocusFleetFuzz",
            dependencies: ["CLibFuzzer", .product(name: "LocusFleet", package: "Locus"), .product(name: "LocusFormats", package: "Locus"),
                           .product(name: "LocusCore", package: "Locus")]
        ),
        .executableTarget(
            name: "LocusMQTTFuzz",
            // LocusCommandLine brings every built-in plugin, the mqtt one among them.
            dependencies: ["CLibFuzzer", .product(name: "LocusCommandLine", package: "Locus"), .product(name: "LocusCore", package: "Locus"),
                           .product(name: "LocusFormats", package: "Locus")]
        ),
        .executableTarget(
            name: "LocusWebFuzz",
            dependencies: ["CLibFuzzer", .product(name: "LocusWebRequests", package: "Locus"), .product(name: "LocusCore", package: "Locus")]
        ),
        .target(name: "LocusWebFuzzSupport"),
        .executableTarget(
            name: "LocusWebHeadFuzz",
            // LocusCommandLine brings every built-in plugin, the web sink (LocusWebPlugin) among them.
            dependencies: [
                "CLibFuzzer", "LocusWebFuzzSupport",
                .product(name: "LocusCommandLine", package: "Locus"), .product(name: "LocusCore", package: "Locus"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "LocusWebFrameFuzz",
            dependencies: [
                "CLibFuzzer", "LocusWebFuzzSupport",
                .product(name: "LocusCommandLine", package: "Locus"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "LocusCertificateFuzz",
            dependencies: ["CLibFuzzer", .product(name: "LocusBus", package: "Locus")]
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

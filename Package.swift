// swift-tools-version:6.0
// SPDX-License-Identifier: Apache-2.0
import Foundation
import PackageDescription

/// One target per folder under Plugins/, read from its `plugin.json`: the plugin type and what its
/// module needs besides LocusCore and Logging (targets of this package; `products`:
/// `{"name", "package"}` of a package dependency). The module is `Locus<Folder>Plugin`. Adding a built-in
/// plugin is its folder plus its factory in Sources/LocusPlugins/BuiltinPlugins.swift (a test
/// names a folder that is missing there).
struct PluginManifest: Decodable {
    struct Product: Decodable {
        var name: String
        var package: String
    }
    var type: String
    var dependencies: [String]
    var products: [Product]?
}

let pluginsDirectory = URL(fileURLWithPath: Context.packageDirectory).appendingPathComponent("Plugins")
let pluginTargets: [(name: String, folder: String, extra: [Target.Dependency])] =
    ((try? FileManager.default.contentsOfDirectory(atPath: pluginsDirectory.path)) ?? []).sorted().compactMap { folder in
        let file = pluginsDirectory.appendingPathComponent(folder).appendingPathComponent("plugin.json")
        guard let data = try? Data(contentsOf: file) else { return nil }
        guard let manifest = try? JSONDecoder().decode(PluginManifest.self, from: data) else {
            fatalError("Plugins/\(folder)/plugin.json: expected {\"type\": …, \"dependencies\": [...]}")
        }
        return ("Locus\(folder)Plugin", folder, manifest.dependencies.map { .target(name: $0) }
                    + (manifest.products ?? []).map { .product(name: $0.name, package: $0.package) })
    }

/// A plugin's tests live in its folder (`Plugins/<Folder>/Tests`, fixtures in `Tests/Fixtures`), as
/// target `Locus<Folder>PluginTests` with the plugin, what the plugin itself depends on, and LocusTestKit.
let pluginTestTargets: [Target] = pluginTargets.compactMap { plugin in
    let tests = pluginsDirectory.appendingPathComponent(plugin.folder).appendingPathComponent("Tests")
    guard FileManager.default.fileExists(atPath: tests.path) else { return nil }
    let hasFixtures = FileManager.default.fileExists(atPath: tests.appendingPathComponent("Fixtures").path)
    return .testTarget(
        name: plugin.name + "Tests",
        dependencies: [.target(name: plugin.name), "LocusCore", "LocusTestKit", .product(name: "Logging", package: "swift-log")]
            + plugin.extra,
        path: "Plugins/\(plugin.folder)/Tests",
        resources: hasFixtures ? [.copy("Fixtures")] : []
    )
}

let package = Package(
    name: "Locus",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "locus", targets: ["locus"]),
        // The whole command line as a library: a binary of your own with extra plugin types
        // (examples/plugin-package, docs/writing-plugins.md).
        .library(name: "LocusCommandLine", targets: ["LocusCommandLine"]),
        .library(name: "LocusCore", targets: ["LocusCore"]),
        .library(name: "LocusBus", targets: ["LocusBus"]),
        .library(name: "LocusRuntime", targets: ["LocusRuntime"]),
        .library(name: "LocusTestKit", targets: ["LocusTestKit"]),
        .library(name: "LocusNMEA", targets: ["LocusNMEA"]),
        .library(name: "LocusFormats", targets: ["LocusFormats"]),
        .library(name: "LocusStore", targets: ["LocusStore"]),
        .library(name: "LocusFleet", targets: ["LocusFleet"]),
        .library(name: "LocusWebRequests", targets: ["LocusWebRequests"]),
    ],
    dependencies: [
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        // Already brought by Hummingbird; named because the web gateway's connection guards
        // are NIO channel handlers (Plugins/Web).
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CZeroMQ",
            providers: [.apt(["libzmq3-dev"])]
        ),
        // libmosquitto's API (headers from Debian's libmosquitto-dev), opened with dlopen on first
        // use: a daemon without an `mqtt` entry never loads it or the TLS libraries it brings.
        .target(name: "CMosquitto"),
        // libnats's API (headers from Debian's libnats-dev), opened the same way on first use: only
        // a configuration with NATS loads it.
        .target(name: "CNATS"),
        // The commit and build date `locus --version` prints, in every build: the plugin runs
        // tools/build-info.sh before each build, which writes them into a generated source.
        .plugin(name: "LocusBuildInfoPlugin", capability: .buildTool(), path: "Sources/LocusBuildInfoPlugin"),
        .target(name: "LocusBuildInfo", plugins: ["LocusBuildInfoPlugin"]),
        // Header-only: prctl and pipe2 for the exec plugin's process groups.
        .systemLibrary(name: "CProcessControl"),
        .systemLibrary(
            name: "CSDBus",
            providers: [.apt(["libsystemd-dev"])]
        ),
        .target(
            name: "LocusCore",
            dependencies: [.product(name: "Logging", package: "swift-log")]
        ),
        .target(
            name: "LocusNMEA",
            dependencies: ["LocusCore"]
        ),
        .target(
            name: "LocusTestKit",
            dependencies: ["LocusCore", "LocusRuntime", .product(name: "Logging", package: "swift-log")]
        ),
        .target(
            name: "LocusFormats",
            dependencies: ["LocusCore", "LocusNMEA"]
        ),
        .target(
            name: "LocusBus",
            dependencies: ["CZeroMQ", "LocusCore", .product(name: "Logging", package: "swift-log")]
        ),
        .target(
            name: "LocusRuntime",
            dependencies: [
                "LocusCore", "LocusBus", "LocusStore",
                .product(name: "Yams", package: "Yams"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
        .target(
            name: "LocusPlugins",
            dependencies: ["LocusCore"] + pluginTargets.map { .target(name: $0.name) }
        ),
        .target(
            name: "LocusCommandLine",
            dependencies: [
                "LocusCore", "LocusBus", "LocusRuntime", "LocusStore", "LocusPlugins", "LocusConsolePlugin", "LocusFormats", "LocusBLE",
                "LocusWebPlugin", "LocusRegionPlugin", "LocusBuildInfo",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(name: "locus", dependencies: ["LocusCommandLine"]),
        .target(name: "LocusRegions", dependencies: ["LocusCore"]),
        .target(name: "LocusConditions", dependencies: ["LocusCore", .product(name: "Logging", package: "swift-log")]),
        .target(name: "LocusWebRequests", dependencies: ["LocusCore"]),
        .target(name: "LocusBLE", dependencies: ["LocusCore"]),
        .target(name: "LocusStore", dependencies: ["LocusCore", .product(name: "GRDB", package: "GRDB.swift")]),
        // Partition leases for a group of servers (issue 33): the algorithm, on any compare-and-set store.
        .target(name: "LocusFleet", dependencies: ["LocusCore"]),
        // The NATS client Locus needs (JetStream streams, pull consumers, key-value leases), on CNATS.
        .target(name: "LocusNATS", dependencies: ["CNATS", "LocusCore", "LocusFleet"]),
        .executableTarget(
            name: "locus-bench",
            dependencies: ["LocusCore", "LocusBus", "LocusNMEA", "LocusRegions", "LocusBLE", "LocusBeaconPlugin", "LocusStore",
                           .product(name: "GRDB", package: "GRDB.swift")],
            path: "Benchmarks/locus-bench"
        ),
        .testTarget(name: "LocusCoreTests", dependencies: ["LocusCore"]),
        .testTarget(name: "LocusRegionsTests", dependencies: ["LocusRegions", "LocusCore"]),
        .testTarget(name: "LocusConditionsTests", dependencies: ["LocusConditions", "LocusCore", .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "LocusBLETests", dependencies: ["LocusBLE", "LocusCore"], resources: [.copy("Fixtures")]),
        .testTarget(name: "LocusStoreTests", dependencies: ["LocusStore", "LocusCore"]),
        .testTarget(name: "LocusFleetTests", dependencies: ["LocusFleet", "LocusCore"]),
        .testTarget(name: "LocusNATSTests", dependencies: ["LocusNATS", "LocusFleet", "LocusCore", "LocusTestKit"]),
        // The process LocusStoreTests' crash test SIGKILLs (it finds it next to the test bundle).
        .executableTarget(name: "LocusStoreCrashWriter", dependencies: ["LocusStore", "LocusCore"], path: "Tests/LocusStoreCrashWriter"),
        .testTarget(name: "LocusFormatsTests", dependencies: ["LocusFormats", "LocusCore"], resources: [.copy("Fixtures")]),
        .testTarget(name: "LocusNMEATests", dependencies: ["LocusNMEA", "LocusCore"], resources: [.copy("Fixtures")]),
        .testTarget(name: "LocusBusTests", dependencies: ["LocusBus", "LocusCore", "CZeroMQ"]),
        .testTarget(
            name: "LocusRuntimeTests",
            dependencies: ["LocusRuntime", "LocusPlugins", "LocusCore", "LocusBus"],
            resources: [.copy("Fixtures")]
        ),
        // The built-in plugins together: the registry, and what holds for every service alike.
        .testTarget(
            name: "LocusPluginsTests",
            dependencies: ["LocusPlugins", "LocusCore", "LocusTestKit"] + pluginTargets.map { .target(name: $0.name) }
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["LocusCore", "LocusRuntime", "LocusStore", "LocusPlugins", "LocusTestKit", "LocusFleet", "LocusNATS",
                           .product(name: "Logging", package: "swift-log")],
            exclude: ["Scripts"],
            resources: [.copy("Fixtures")]
        ),
    ] + pluginTestTargets + pluginTargets.map { plugin in
        // A plugin's `Resources/` files are embedded in its code (`PackageResources.<name>`):
        // the binary needs nothing installed beside it.
        let folder = pluginsDirectory.appendingPathComponent(plugin.folder)
        let resources = ((try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("Resources").path)) ?? [])
            .sorted().map { Resource.embedInCode("Resources/" + $0) }
        guard !resources.isEmpty else {
            return .target(
                name: plugin.name,
                dependencies: ["LocusCore", .product(name: "Logging", package: "swift-log")] + plugin.extra,
                path: "Plugins/\(plugin.folder)/Sources"
            )
        }
        let others = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0 != "Sources" && $0 != "Resources" }
        return .target(
            name: plugin.name,
            dependencies: ["LocusCore", .product(name: "Logging", package: "swift-log")] + plugin.extra,
            path: "Plugins/\(plugin.folder)",
            exclude: others.sorted(),
            sources: ["Sources"],
            resources: resources
        )
    },
    swiftLanguageModes: [.v6]
)

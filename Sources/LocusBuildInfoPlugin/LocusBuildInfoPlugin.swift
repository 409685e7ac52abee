import Foundation
import PackagePlugin

/// Gives every build of the LocusBuildInfo module the commit and build date `locus --version`
/// prints: before each build, tools/build-info.sh writes them into `BuildValues.swift` in the
/// plugin's work directory, which SwiftPM compiles into the module. A prebuild command, since
/// nothing SwiftPM can see tells it that HEAD moved; the script rewrites the file only when its
/// content changes, so a build of the same commit compiles nothing again.
@main struct LocusBuildInfoPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("BuildInfo")
        let script = context.package.directoryURL.appendingPathComponent("tools/build-info.sh")
        // A prebuild command starts with an empty environment: git needs PATH (and HOME for its
        // safe.directory setting), and a reproducible build (dpkg-buildpackage) sets
        // SOURCE_DATE_EPOCH as the build date.
        let outside = ProcessInfo.processInfo.environment
        var environment = ["PATH": outside["PATH"] ?? "/usr/bin:/bin"]
        for name in ["HOME", "SOURCE_DATE_EPOCH"] { if let value = outside[name] { environment[name] = value } }
        return [.prebuildCommand(displayName: "Commit and build date for locus --version",
                                 executable: URL(fileURLWithPath: "/bin/sh"),
                                 arguments: [script.path, output.path],
                                 environment: environment,
                                 outputFilesDirectory: output)]
    }
}

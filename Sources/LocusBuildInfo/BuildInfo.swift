/// What `locus --version` says about the build it is: the git commit and the build date.
///
/// The values come from `BuildValues.swift`, which tools/build-info.sh writes before every build
/// (run by the build-tool plugin Sources/LocusBuildInfoPlugin), for `swift build`, `make release`
/// and the Debian package alike. They are behind functions, so a new commit recompiles this
/// module's one generated file; the interface other modules see does not change.
public enum BuildInfo {
    /// The commit the binary was built from: 7 or more hex digits, "-dirty" appended when tracked
    /// files differed from it; "unknown" when the sources were not a git checkout (a tarball).
    public static var commit: String { generatedCommit }

    /// The build date, YYYY-MM-DD in UTC: SOURCE_DATE_EPOCH if the build set it, else the
    /// commit's date, so the same commit builds the same binary; "unknown" without either.
    public static var buildDate: String { generatedBuildDate }
}

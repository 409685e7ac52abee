import LocusCore
import LocusRuntime

/// The runtime's part of a `FileFedService` for tests that drive a service by hand.
public enum ServiceFiles {
    /// Reads the service's files and hands them over, as the runtime does when it builds an
    /// instance (errors as `locus check` reports them: `ConfigValueError`s).
    public static func load<S: FileFedService>(_ service: inout S) throws {
        var any: any FileFedService = service
        try WatchedFileReader.load(into: &any)
        service = any as! S
    }

    /// Reads each of the service's files now and hands it over as a change, as the runtime's
    /// watch does when the file's signature changed.
    public static func deliver<S: FileFedService>(_ service: inout S, output: inout ServiceOutput) throws {
        for file in service.watchedFiles {
            try service.fileChanged(file, contents: WatchedFileReader.read(file), output: &output)
        }
    }
}

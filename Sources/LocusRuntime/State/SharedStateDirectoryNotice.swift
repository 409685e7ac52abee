import Foundation
import Logging

/// Before issue 50 every config without `hub.state_directory` kept its state in the one default
/// state directory. Now each config file has its own under it (`RuntimePaths.stateDirectory(forConfig:)`);
/// what an earlier Locus kept there is left as it was and no longer used by default, which the
/// first start of a config in its own directory says, with how to go on with it.
enum SharedStateDirectoryNotice {
    static func tell(_ hub: HubSettings, logger: Logger) {
        guard let shared = hub.sharedStateDirectory else { return }
        let manager = FileManager.default
        guard manager.fileExists(atPath: shared + "/services"), !manager.fileExists(atPath: hub.stateDirectory + "/services") else { return }
        logger.notice("this config keeps its state in a directory of its own now; the state an earlier Locus kept for every config in \(shared) is not used. To go on with it, set hub.state_directory: \(shared) (or LOCUS_STATE_DIR)", metadata: [
            "state": "\(hub.stateDirectory)"])
    }
}

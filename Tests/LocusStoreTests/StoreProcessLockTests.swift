import Foundation
import LocusCore
import Testing
@testable import LocusStore

/// One process at a time per store file: a second process is refused with the holder's pid
/// and a way out; the lock dies with its process (kill -9 leaves nothing stale); one process
/// may reopen a file it has open (a service rebuilt in place).
@Suite struct StoreProcessLockTests {
    let dir = TemporaryDirectory()

    @Test(.timeLimit(.minutes(1)))
    func aSecondProcessIsRefusedUntilTheFirstDies() throws {
        let writer = try #require(CrashSafetyTests.writerPath(),
            "LocusStoreCrashWriter not found next to the test bundle: build with `swift build --build-tests`")
        let path = dir.file("state/region-fences.sqlite")
        let log = dir.file("writer.out")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: writer)
        process.arguments = ["loop", path, "3"]
        process.standardOutput = FileHandle(forWritingAtPath: log)
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
        let deadline = Date().addingTimeInterval(30)
        while !((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("ready"), process.isRunning, Date() < deadline {
            usleep(1000)
        }
        try #require(process.isRunning, "the writer did not start")

        let error = try #require(throws: StateStoreError.self) { try ServiceStateStore(path: path, kind: "crashtest") }
        #expect(error.code == .inUse)
        #expect(error.description.contains("pid \(process.processIdentifier)"), "\(error)")
        #expect(error.description.contains("state_directory"), "\(error)")

        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let store = try ServiceStateStore(path: path, kind: "crashtest")
        #expect(Int(try store.meta("batch") ?? "0")! >= 0)
        try store.close()
    }

    @Test func oneProcessMayOpenAFileTwiceAndCloseReleasesIt() throws {
        let path = dir.file("region.sqlite")
        let first = try ServiceStateStore(path: path, kind: "region")
        let second = try ServiceStateStore(path: path, kind: "region")
        try second.close()
        try first.close()
        #expect(FileManager.default.fileExists(atPath: path + ".lock"))
    }
}

import Foundation
import Testing
@testable import LocusBus

@Suite("ZeroMQ socket wrapper")
struct ZMQSocketTests {
    @Test func multipartRoundTripOverInproc() throws {
        let context = ZMQContext()
        let pull = try ZMQSocket(context: context, type: .pull)
        try pull.bind("inproc://roundtrip")
        let push = try ZMQSocket(context: context, type: .push)
        try push.connect("inproc://roundtrip")
        let frames: [[UInt8]] = [[1, 2, 3], [], Array(repeating: 7, count: 1000)]
        #expect(try push.send(frames))
        #expect(try receive(pull) == frames)
        #expect(try pull.receiveMultipart(dontWait: true) == nil)
        push.close()
        pull.close()
    }

    @Test func multipartRoundTripOverIPC() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let context = ZMQContext()
        let pull = try ZMQSocket(context: context, type: .pull)
        try pull.setOption(.linger(milliseconds: 0))
        // The parent directory does not exist yet: bind creates it, owner-only.
        try pull.bind(dir.endpoint("rt.sock"))
        var st = stat()
        #expect(stat(dir.path, &st) == 0)
        #expect(st.st_mode & 0o777 == 0o700)
        let push = try ZMQSocket(context: context, type: .push)
        try push.setOption(.linger(milliseconds: 0))
        try push.connect(dir.endpoint("rt.sock"))
        #expect(try push.send(topic: "obs.fix.gps0", body: [0x7B, 0x7D]))
        #expect(try receive(pull) == [Array("obs.fix.gps0".utf8), [0x7B, 0x7D]])
        push.close()
        pull.close()
    }

    @Test func bindingTheSameIPCPathTwiceNamesTheEndpoint() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let context = ZMQContext()
        let endpoint = dir.endpoint("twice.sock")
        let first = try ZMQSocket(context: context, type: .pub)
        try first.setOption(.linger(milliseconds: 0))
        try first.bind(endpoint)
        let second = try ZMQSocket(context: context, type: .pub)
        try second.setOption(.linger(milliseconds: 0))
        do {
            try second.bind(endpoint)
            Issue.record("the second bind of \(endpoint) succeeded")
        } catch let error as ZMQError {
            #expect(error.code == EADDRINUSE)
            #expect(error.endpoint == endpoint)
            #expect(error.description.hasPrefix("cannot bind \(endpoint): Address already in use"))
        }
        // The first socket still owns the file.
        #expect(IPCSocketFile.isListening(path: dir.file("twice.sock")))
        first.close()
        second.close()
    }

    @Test func bindingTheSameTCPPortTwiceNamesTheEndpoint() throws {
        let context = ZMQContext()
        let first = try ZMQSocket(context: context, type: .pub)
        try first.setOption(.linger(milliseconds: 0))
        try first.bind("tcp://127.0.0.1:*")
        let endpoint = try first.lastEndpoint
        #expect(endpoint.hasPrefix("tcp://127.0.0.1:"))
        let second = try ZMQSocket(context: context, type: .pub)
        try second.setOption(.linger(milliseconds: 0))
        let error = #expect(throws: ZMQError.self) { try second.bind(endpoint) }
        #expect(error?.code == EADDRINUSE)
        #expect(error?.description == "cannot bind \(endpoint): Address already in use")
        first.close()
        second.close()
    }

    @Test func staleSocketFileIsReplacedButOtherFilesAreNot() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        // A socket file nobody listens on, as a crashed process leaves it.
        let context = ZMQContext()
        do {
            let s = try ZMQSocket(context: context, type: .pub)
            try s.setOption(.linger(milliseconds: 0))
            try s.bind(dir.endpoint("stale.sock"))
            s.close()
        }
        #expect(FileManager.default.fileExists(atPath: dir.file("stale.sock")))
        // libzmq closes listeners asynchronously, on its I/O thread.
        #expect(eventually { !IPCSocketFile.isListening(path: dir.file("stale.sock")) })
        let s = try ZMQSocket(context: context, type: .pub)
        try s.setOption(.linger(milliseconds: 0))
        try s.bind(dir.endpoint("stale.sock"))
        #expect(IPCSocketFile.isListening(path: dir.file("stale.sock")))
        s.close()

        #expect(FileManager.default.createFile(atPath: dir.file("plain"), contents: Data("keep me".utf8)))
        let t = try ZMQSocket(context: context, type: .pub)
        try t.setOption(.linger(milliseconds: 0))
        let error = #expect(throws: ZMQError.self) { try t.bind(dir.endpoint("plain")) }
        #expect(error?.description.contains("is not a socket") == true)
        #expect(try String(contentsOfFile: dir.file("plain"), encoding: .utf8) == "keep me")
        t.close()
    }

    @Test func closedSocketThrowsAndCloseIsIdempotent() throws {
        let context = ZMQContext()
        let s = try ZMQSocket(context: context, type: .pub)
        s.close()
        s.close()
        #expect(s.isClosed)
        let error = #expect(throws: ZMQError.self) { try s.send([[1]]) }
        #expect(error?.code == ENOTSOCK)
    }

    @Test func receiveTimesOutWithNil() throws {
        let context = ZMQContext()
        let pull = try ZMQSocket(context: context, type: .pull)
        try pull.bind("inproc://quiet")
        let start = Date()
        #expect(try pull.receiveMultipart(timeoutMilliseconds: 50) == nil)
        #expect(Date().timeIntervalSince(start) >= 0.04)
        try pull.setOption(.receiveTimeout(milliseconds: 20))
        #expect(try pull.receiveMultipart(dontWait: false) == nil)
    }

    @Test func pollerReportsReadableSockets() throws {
        let context = ZMQContext()
        let a = try ZMQSocket(context: context, type: .pull)
        try a.bind("inproc://a")
        let b = try ZMQSocket(context: context, type: .pull)
        try b.bind("inproc://b")
        let push = try ZMQSocket(context: context, type: .push)
        try push.connect("inproc://b")
        var poller = try ZMQPoller([a, b])
        #expect(try poller.poll(timeoutMilliseconds: 0).isEmpty)
        try push.send([[42]])
        let ready = try poller.poll(timeoutMilliseconds: 1000)
        #expect(ready.readable == [1])
        #expect(!ready.isReadable(0))
    }

    @Test func messagesMoveBetweenSocketsWithoutCopies() throws {
        let context = ZMQContext()
        let inbound = try ZMQSocket(context: context, type: .pull)
        try inbound.bind("inproc://in")
        let outbound = try ZMQSocket(context: context, type: .push)
        try outbound.bind("inproc://out")
        let source = try ZMQSocket(context: context, type: .push)
        try source.connect("inproc://in")
        let sink = try ZMQSocket(context: context, type: .pull)
        try sink.connect("inproc://out")
        let big = [UInt8](repeating: 0xAB, count: 4096)
        try source.send([[1, 2], big])
        var first = ZMQMessage()
        var second = ZMQMessage()
        #expect(try inbound.waitReadable(timeoutMilliseconds: 1000))
        // (ZMQMessage is not copyable, so its properties are read into locals for #expect.)
        let gotFirst = try first.receive(from: inbound, dontWait: true)
        let firstHasMore = first.hasMore, firstBytes = first.bytes
        let gotSecond = try second.receive(from: inbound, dontWait: true)
        let secondHasMore = second.hasMore, secondCount = second.count
        #expect(gotFirst && firstHasMore && firstBytes == [1, 2])
        #expect(gotSecond && !secondHasMore && secondCount == 4096)
        let sentFirst = try first.send(to: outbound, more: true, dontWait: true)
        let sentSecond = try second.send(to: outbound, more: false, dontWait: true)
        let leftOver = first.count
        #expect(sentFirst && sentSecond)
        #expect(leftOver == 0) // the buffer moved on
        #expect(try receive(sink) == [[1, 2], big])
    }

    @Test func contextShutdownEndsABlockedReceiverWithETERM() throws {
        let context = ZMQContext()
        let sawTermination = ReadySignal()
        let thread = WorkerThread(name: "eterm-test") {
            do {
                let s = try ZMQSocket(context: context, type: .pull)
                defer { s.close() }
                try s.bind("inproc://eterm")
                while true { _ = try s.receiveMultipart(timeoutMilliseconds: 100) }
            } catch let error as ZMQError where error.isContextTerminated {
                sawTermination.set()
            } catch {}
        }
        thread.start()
        usleep(50_000)
        context.shutdown() // returns only once the thread has closed its socket
        #expect(sawTermination.wait(timeout: 5))
        #expect(thread.join(timeout: 5))
        #expect(context.isTerminated)
    }
}

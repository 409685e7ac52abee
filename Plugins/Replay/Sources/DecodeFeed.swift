import Foundation
import LocusCore
import LocusFormats

/// Runs `RecordingDecoder` (which pushes observations into a callback) on its own thread and
/// hands the observations to an async consumer through a bounded buffer: the decoder thread
/// waits while the buffer is full, so a file is never loaded whole however slowly it is played.
/// `cancel()` (also called when the consuming task is cancelled) makes the decoder stop at its
/// next observation.
final class DecodeFeed: @unchecked Sendable {
    enum Next {
        case observation(RecordedObservation)
        case end(warnings: [String], statistics: DecodeStatistics)
    }

    /// Guards `buffer`, `head`, `finished`, `cancelled` and `waiter`.
    private let condition = NSCondition()
    private let capacity: Int
    private var buffer: [RecordedObservation] = []
    private var head = 0
    private var finished: Result<(warnings: [String], statistics: DecodeStatistics), Error>?
    private var cancelled = false
    private var waiter: CheckedContinuation<Void, Never>?

    init(capacity: Int = 256) { self.capacity = max(1, capacity) }

    /// Starts decoding `path` on a new thread. The thread holds the feed until it returns; the
    /// feed does not hold the thread (Foundation's `Thread` keeps its closure for its own life,
    /// so the two would keep each other, and a looping replay leaked a feed per pass).
    func start(path: String, format: RecordingFormat?, options: DecodeOptions) {
        let t = Thread { [self] in
            do {
                let input = try ByteInput(path: path)
                var decoder = RecordingDecoder(options: options)
                try decoder.decode(input, format: format) { try self.put($0) }
                self.finish(.success((decoder.warnings, decoder.statistics)))
            } catch {
                self.finish(.failure(error))
            }
        }
        t.name = "locus.replay.decode"
        t.start()
    }

    /// Decoder side: waits while the buffer is full; throws `CancellationError` once cancelled.
    private func put(_ o: RecordedObservation) throws {
        condition.lock()
        while buffer.count - head >= capacity && !cancelled { condition.wait() }
        if cancelled { condition.unlock(); throw CancellationError() }
        buffer.append(o)
        let w = waiter
        waiter = nil
        condition.unlock()
        w?.resume()
    }

    private func finish(_ result: Result<(warnings: [String], statistics: DecodeStatistics), Error>) {
        condition.lock()
        finished = result
        let w = waiter
        waiter = nil
        condition.broadcast()
        condition.unlock()
        w?.resume()
    }

    /// Stops the decoder thread (at its next observation) and wakes a waiting consumer.
    func cancel() {
        condition.lock()
        cancelled = true
        let w = waiter
        waiter = nil
        condition.broadcast()
        condition.unlock()
        w?.resume()
    }

    /// The next observation, or the end with the decoder's warnings; rethrows decode errors.
    func next() async throws -> Next {
        while true {
            try Task.checkCancellation()
            if let n = try poll() { return n }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in park(c) }
            } onCancel: {
                self.cancel()
            }
        }
    }

    /// What is ready now, if anything (nil: wait).
    private func poll() throws -> Next? {
        condition.lock()
        if head < buffer.count {
            let o = buffer[head]
            head += 1
            if head >= 1024 || head == buffer.count { buffer.removeFirst(head); head = 0 }
            condition.signal()
            condition.unlock()
            return .observation(o)
        }
        if let finished {
            condition.unlock()
            let (warnings, statistics) = try finished.get()
            return .end(warnings: warnings, statistics: statistics)
        }
        let stop = cancelled
        condition.unlock()
        if stop { throw CancellationError() }
        return nil
    }

    /// Keeps `c` to be resumed by the decoder's next observation or end (or resumes it now).
    private func park(_ c: CheckedContinuation<Void, Never>) {
        condition.lock()
        if head < buffer.count || finished != nil || cancelled {
            condition.unlock()
            c.resume()
        } else {
            waiter = c
            condition.unlock()
        }
    }

    /// Observations waiting for the consumer (tests).
    var buffered: Int { condition.lock(); defer { condition.unlock() }; return buffer.count - head }
    /// Whether the decoder thread has returned (tests).
    var decoderFinished: Bool { condition.lock(); defer { condition.unlock() }; return finished != nil }

    deinit { cancel() }
}

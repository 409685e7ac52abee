// A writer process for LocusStoreTests' crash test, and a commit-cost benchmark.
//
//   LocusStoreCrashWriter loop PATH KEYS   commit batches forever (until killed)
//   LocusStoreCrashWriter bench PATH [N]   time N commits of four small puts, print µs/commit
//
// `loop` continues from the batch number in meta "batch". Batch B, in one commit: every 7th
// batch first deletes the whole "state" collection; puts KEYS records "k000"… whose value
// carries B and a random-length padding (so a batch spans several pages); sets meta "batch" to
// B; appends one outbox event with payload {"batch": B}; acknowledges events more than three
// behind the previous one. After each commit returns it writes "committed B\n" to stdout with
// a bare write(2), so the line is in the kernel before the next commit starts and survives a
// SIGKILL. It writes "ready B\n" once the store is open.
import Foundation
import LocusCore
import LocusStore

func say(_ line: String) {
    var bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeMutableBytes { write(1, $0.baseAddress, $0.count) }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("LocusStoreCrashWriter: \(message)\n".utf8))
    exit(2)
}

let args = CommandLine.arguments
guard args.count >= 3 else { fail("usage: LocusStoreCrashWriter loop PATH KEYS | bench PATH [N]") }
let path = args[2]

switch args[1] {
case "loop":
    guard args.count == 4, let keys = Int(args[3]) else { fail("usage: LocusStoreCrashWriter loop PATH KEYS") }
    do {
        let store = try ServiceStateStore(path: path, kind: "crashtest")
        var batch = Int(try store.meta("batch") ?? "0") ?? 0
        var lastID = try store.pendingEnvelopes().lastID
        say("ready \(batch)")
        while true {
            batch += 1
            var changes = StateChanges()
            if batch % 7 == 0 { changes.deleteAll(in: "state") }
            for k in 0..<keys {
                let pad = String(repeating: "x", count: Int.random(in: 0...3000))
                let key = "k" + String(repeating: "0", count: 3 - String(k).count) + String(k)
                changes.put("state", key: key, value: .object(["batch": .number(Double(batch)), "pad": .string(pad)]))
            }
            changes.setMeta("batch", String(batch))
            changes.append(envelopes: [("crash.batch", Array("{\"batch\":\(batch)}".utf8))], time: EventTime(milliseconds: Int64(batch)))
            if let lastID { changes.acknowledge(through: lastID - 3) }
            lastID = try store.commit(changes).first
            say("committed \(batch)")
        }
    } catch {
        fail("\(error)")
    }

case "bench":
    let n = args.count > 3 ? Int(args[3]) ?? 20_000 : 20_000
    do {
        try? FileManager.default.removeItem(atPath: path)
        let store = try ServiceStateStore(path: path, kind: "bench")
        func batch(_ i: Int) -> StateChanges {
            var c = StateChanges()
            for k in 0..<4 {
                c.put("state", key: "region-\(k)", value: .object([
                    "inside": .bool(i % 2 == 0), "since": .number(Double(1_700_000_000_000 + i)), "dwell": .number(12.5),
                ]))
            }
            return c
        }
        for i in 0..<500 { try store.commit(batch(i)) }  // warm up: statement cache, WAL growth
        // CPU time as well as wall time: on a loaded machine the wall time mostly measures the
        // other processes.
        func cpuMicroseconds() -> Double {
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e6
                + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
        }
        let start = DispatchTime.now().uptimeNanoseconds, startCPU = cpuMicroseconds()
        for i in 0..<n { try store.commit(batch(i)) }
        let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1000, cpu = cpuMicroseconds() - startCPU
        print(String(format: "%d commits of 4 puts: %.1f µs/commit wall, %.1f µs/commit CPU", n, wall / Double(n), cpu / Double(n)))
        try store.close()
    } catch {
        fail("\(error)")
    }

default:
    fail("unknown mode \(args[1]); use loop or bench")
}

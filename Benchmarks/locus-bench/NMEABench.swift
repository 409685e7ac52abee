import Foundation
import LocusCore
import LocusNMEA

/// `nmea FILE [REPEATS]`: the NMEA decoder alone — framing, sentence parsing and epoch
/// assembly into `Fix`/`SkyView` values, no JSON and no I/O. The file is read into memory first
/// and fed in 64 KiB chunks, as `locus decode` feeds a file. Each repeat decodes the whole file
/// with a fresh decoder; the best repeat is reported (wall clock and this thread's CPU time;
/// on a shared machine the CPU figure is the steadier one).
enum NMEABench {
    static let chunk = 65_536

    static func run(path: String, repeats: Int) throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        var bestWall = Double.infinity, bestCPU = Double.infinity
        var sentences = 0, fixes = 0, skies = 0
        for _ in 0..<repeats {
            var decoder = NMEADecoder(options: .init(source: "gps0"))
            var f = 0, s = 0
            let w0 = now(), c0 = threadCPU()
            bytes.withUnsafeBytes { all in
                var offset = 0
                while offset < all.count {
                    let end = min(offset + chunk, all.count)
                    decoder.feed(UnsafeRawBufferPointer(rebasing: all[offset..<end])) { obs in
                        if case .fix = obs { f += 1 } else { s += 1 }
                    }
                    offset = end
                }
                decoder.finish { obs in if case .fix = obs { f += 1 } else { s += 1 } }
            }
            let c1 = threadCPU(), w1 = now()
            bestWall = min(bestWall, w1 - w0)
            bestCPU = min(bestCPU, c1 - c0)
            sentences = decoder.statistics.framing.sentences
            fixes = f; skies = s
        }
        precondition(fixes > 0, "no fixes decoded from \(path)")
        print("nmea decode: \(rate(sentences, bestWall)) sentences/s wall, \(rate(sentences, bestCPU)) sentences/s cpu "
              + "(\(sentences) sentences, \(fixes) fixes, \(skies) sky views, \(bytes.count) B, best of \(repeats))")
    }

    /// CPU seconds used by the calling thread.
    static func threadCPU() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

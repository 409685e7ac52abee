import Foundation
import LocusBus
import LocusCore

/// `codec N`: encode and decode N fix envelopes with the LocusCore codec, and run the hub's
/// validator over them; each loop is timed on its own. `validate N` runs only the validator
/// (for profiling).
enum CodecBench {
    static let size = FixSamples.body(0).count

    static func run(count n: Int) {
        encode(count: n)
        let bodies = distinctBodies(n)
        decode(bodies, count: n)
        validate(bodies, count: n, decodePayloads: false)
        validate(bodies, count: n, decodePayloads: true)
    }

    static func runValidationOnly(count n: Int) {
        validate(distinctBodies(n), count: n, decodePayloads: false)
    }

    /// As many distinct bodies as stay reasonable in memory (about 18 MB), used round-robin.
    static func distinctBodies(_ n: Int) -> [[UInt8]] {
        (0..<min(n, 65_536)).map(FixSamples.body)
    }

    static func encode(count n: Int) {
        let variants = 1024
        let fixes = (0..<variants).map(FixSamples.fix)
        var bytes = 0
        let t0 = now()
        for i in 0..<n {
            var w = JSONWriter()
            EnvelopeCodec.encode(fixes[i & (variants - 1)], producer: "gps0", seq: UInt64(i + 1),
                                 time: FixSamples.start.adding(seconds: Double(i) * 0.1), into: &w)
            bytes &+= w.bytes.count
        }
        let t1 = now()
        print("codec encode fix \(size)B: \(rate(n, t1 - t0)) msg/s (N=\(n), avg \(bytes / n) B)")
    }

    static func decode(_ bodies: [[UInt8]], count n: Int) {
        let registry = PayloadRegistry.core
        var checksum = 0.0
        let t0 = now()
        for i in 0..<n {
            let e = try! EnvelopeCodec.decode(bodies[i % bodies.count], registry: registry)
            checksum += e.payload.as(Fix.self)!.latitude!
        }
        let t1 = now()
        precondition(checksum > 0)
        print("codec decode fix \(size)B: \(rate(n, t1 - t0)) msg/s (N=\(n))")
    }

    static func validate(_ bodies: [[UInt8]], count n: Int, decodePayloads: Bool) {
        let validator = MessageValidator(registry: .core, maxMessageBytes: 262_144, decodePayloads: decodePayloads)
        let topic = Array(FixSamples.topic.utf8)
        var rejected = 0
        let t0 = now()
        topic.withUnsafeBytes { t in
            for i in 0..<n {
                bodies[i % bodies.count].withUnsafeBytes { b in
                    if validator.check(topic: t, body: b) != nil { rejected += 1 }
                }
            }
        }
        let t1 = now()
        precondition(rejected == 0)
        let what = decodePayloads ? "validate+payload" : "validate"
        print("codec \(what) fix \(size)B: \(rate(n, t1 - t0)) msg/s (N=\(n), the hub's check)")
    }
}

func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

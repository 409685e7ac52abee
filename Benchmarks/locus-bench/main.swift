import Foundation

/// locus-bench: throughput of the hub and the codec, for `bench/run-bench.sh`.
let usage = """
usage: locus-bench hub N            fix messages through the hub to an ipc subscriber process
       locus-bench hub-payload N    same, with the hub also decoding payloads
       locus-bench hub-tcp N        same as hub, over loopback TCP
       locus-bench hub-curve N      same as hub-tcp, with CURVE (and the ZAP handler's allow-list)
       locus-bench codec N          encode / decode / hub-validate N fix envelopes
       locus-bench validate N       only the hub's validation (for profiling)
       locus-bench nmea FILE [R]    the NMEA decoder alone over FILE, best of R (default 3) repeats
       locus-bench ble FILE [N] [R]  AD payload decoding (hex lines in FILE), N ads per set (default 5M), best of R (default 3)
       locus-bench geofence DIR [C] RegionIndex + exact tests on geofence_bench.py's data in DIR (C: cell degrees, default 0.004)
       locus-bench geofence-query DIR [C] [R]  only the per-point query, R (default 5) passes over the points (for profiling)
       locus-bench beacon DIR       the beacon service alone on tools/beacon_sequence.py bench's data in DIR
       locus-bench journal N DIR    append N events to a journal in DIR, read them back; and the same into SQLite (GRDB)
       locus-bench state-commit N DEVICES DIR  N device records into a service state store in DIR, 2,000 per transaction
"""

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data(usage.utf8))
    exit(2)
}
do {
    switch arguments[1] {
    case "hub", "hub-payload", "hub-tcp", "hub-curve":
        guard let n = parseCount(arguments[2]), n >= 2 else { throw BenchError.usage }
        let transport: HubBench.Transport = arguments[1] == "hub-tcp" ? .tcp : arguments[1] == "hub-curve" ? .curve : .ipc
        try HubBench.run(count: n, validatePayloads: arguments[1] == "hub-payload", transport: transport)
    case "hub-sub":
        guard arguments.count == 5 || arguments.count == 8, let n = parseCount(arguments[3]) else { throw BenchError.usage }
        try HubBench.subscribe(endpoint: arguments[2], count: n, id: arguments[4], keys: Array(arguments.dropFirst(5)))
    case "codec":
        guard let n = parseCount(arguments[2]) else { throw BenchError.usage }
        CodecBench.run(count: n)
    case "validate":
        guard let n = parseCount(arguments[2]) else { throw BenchError.usage }
        CodecBench.runValidationOnly(count: n)
    case "nmea":
        let repeats = arguments.count > 3 ? parseCount(arguments[3]) : 3
        guard let repeats else { throw BenchError.usage }
        try NMEABench.run(path: arguments[2], repeats: repeats)
    case "ble":
        let n = arguments.count > 3 ? parseCount(arguments[3]) : 5_000_000
        let repeats = arguments.count > 4 ? parseCount(arguments[4]) : 3
        guard let n, let repeats else { throw BenchError.usage }
        try BLEBench.run(path: arguments[2], count: n, repeats: repeats)
    case "geofence":
        let cell = arguments.count > 3 ? Double(arguments[3]) : 0.004
        guard let cell, cell > 0 else { throw BenchError.usage }
        try GeofenceBench.run(directory: arguments[2], cellDegrees: cell)
    case "geofence-query":
        let cell = arguments.count > 3 ? Double(arguments[3]) : 0.004
        let repeats = arguments.count > 4 ? parseCount(arguments[4]) : 5
        guard let cell, cell > 0, let repeats else { throw BenchError.usage }
        try GeofenceBench.runQueriesOnly(directory: arguments[2], cellDegrees: cell, repeats: repeats)
    case "beacon":
        try BeaconBench.run(directory: arguments[2])
    case "journal":
        guard arguments.count == 4, let n = parseCount(arguments[2]), n > 0 else { throw BenchError.usage }
        try JournalBench.run(count: n, directory: arguments[3])
    case "state-commit":
        guard arguments.count == 5, let n = parseCount(arguments[2]), n > 0, let devices = parseCount(arguments[3]), devices > 0 else {
            throw BenchError.usage
        }
        try StateCommitBench.run(count: n, devices: devices, directory: arguments[4])
    default:
        throw BenchError.usage
    }
} catch BenchError.usage {
    FileHandle.standardError.write(Data(usage.utf8))
    exit(2)
} catch {
    FileHandle.standardError.write(Data("locus-bench: \(error)\n".utf8))
    exit(1)
}

enum BenchError: Error { case usage }

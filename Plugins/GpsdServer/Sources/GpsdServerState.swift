import Foundation
import LocusCore
import LocusFormats
import NIOCore

/// What a bus message becomes for the server: a device's new fix or sky view.
enum GpsdDeviceUpdate: Sendable {
    case fix(Fix, time: EventTime, device: String)
    case sky(SkyView, time: EventTime, device: String)
    /// A sentence as the receiver sent it (`obs.nmea`), for clients watching with nmea or raw.
    case sentence(String, device: String)

    var device: String {
        switch self {
        case .fix(_, _, let d), .sky(_, _, let d), .sentence(_, let d): d
        }
    }
}

/// The server's clients and devices. Confined to the server's one event loop: the channel
/// handlers, the sweep timer and the sink's updates (`execute`d on the loop) all run there.
final class GpsdServerState: @unchecked Sendable {
    /// A Locus source as a gpsd device: its DEVICE record and its latest reports (for ?POLL).
    struct DeviceRecord {
        var info: GpsdReportWriter.Device
        var lastTPV: GpsdTPVReport?
        var lastFix: Fix?
        var lastSky: GpsdSkyReport?
        /// The source passes its receiver's sentences on (`obs.nmea`).
        var passesNMEA = false
        /// When its last report came, on the server's own monotonic clock (device_timeout).
        var lastReport: NIODeadline
    }

    let configuration: GpsdServerConfiguration
    let statistics: SourceCounters<GpsdServerCounters>
    /// The VERSION report every client gets on connecting.
    let versionReport: [UInt8]
    let driver: String
    /// The clients connected and not being closed (a closed one leaves at once, so its place
    /// is free for the next).
    var clients: [ObjectIdentifier: GpsdClient] = [:]
    /// How many of them each address has (max_clients_per_address).
    var clientsByAddress: [String: Int] = [:]
    var devices: [String: DeviceRecord] = [:]
    /// Device paths in the order they were first seen (DEVICES lists them so).
    var deviceOrder: [String] = []

    init(configuration: GpsdServerConfiguration, statistics: SourceCounters<GpsdServerCounters>, release: String, rev: String) {
        self.configuration = configuration
        self.statistics = statistics
        versionReport = GpsdReportWriter.version(release: release, rev: rev)
        driver = configuration.fixes == .standard ? "Locus standard" : "Locus"
    }

    static var wallClock: EventTime { EventTime(seconds: Date().timeIntervalSince1970) }

    // MARK: Connections

    /// A new connection: its client, or nil when it was refused (`admit`).
    func connected(_ channel: Channel) -> GpsdClient? {
        let now = NIODeadline.now()
        let address = channel.remoteAddress?.ipAddress ?? ""
        guard admit(channel, from: address, now: now) else { return nil }
        let client = GpsdClient(channel: channel, address: address, maxRequestBytes: configuration.maxRequestBytes, now: now)
        clients[ObjectIdentifier(client)] = client
        clientsByAddress[address, default: 0] += 1
        statistics.update {
            $0.clientsOpened += 1
            $0.clientsOpen = clients.count
        }
        send(versionReport, to: client)
        return client
    }

    func disconnected(_ client: GpsdClient) {
        guard !client.closing else { return }
        if client.pendingReports > 0 {
            statistics.update { $0.droppedSlowClient += client.pendingReports }
        }
        client.closing = true
        release(client)
    }

    /// Takes `client` out of the tables and the open and watching counts.
    private func release(_ client: GpsdClient) {
        guard clients.removeValue(forKey: ObjectIdentifier(client)) != nil else { return }
        if let n = clientsByAddress[client.address], n > 1 {
            clientsByAddress[client.address] = n - 1
        } else {
            clientsByAddress[client.address] = nil
        }
        let open = clients.count, watching = watchingCount()
        statistics.update {
            $0.clientsOpen = open
            $0.clientsWatching = watching
        }
    }

    private func watchingCount() -> Int { clients.values.reduce(0) { $0 + ($1.watch.enable ? 1 : 0) } }

    /// Closes `client`, counting the reports it loses; its place is free at once.
    func close(_ client: GpsdClient, counting reason: WritableKeyPath<GpsdServerCounters, Int>, lost extra: Int = 0) {
        guard !client.closing else { return }
        client.closing = true
        let lost = client.pendingReports + extra
        statistics.update {
            $0[keyPath: reason] += 1
            $0.droppedSlowClient += lost
        }
        release(client)
        client.channel.close(promise: nil)
    }

    /// Writes `bytes` to `client` unless that takes it past client_buffer, which cuts it off.
    func send(_ bytes: [UInt8], to client: GpsdClient, isReport: Bool = false) {
        send(ByteBuffer(bytes: bytes), to: client, isReport: isReport)
    }

    /// `send` of a buffer: a report for many clients is one buffer they share (copy on write),
    /// not a copy per client.
    private func send(_ bytes: ByteBuffer, to client: GpsdClient, isReport: Bool) {
        guard !client.closing else { return }
        let n = bytes.readableBytes
        if client.pendingBytes > 0, client.pendingBytes + n > configuration.clientBuffer {
            close(client, counting: \.clientsCutOff, lost: isReport ? 1 : 0)
            return
        }
        if client.pendingBytes == 0 { client.lastWriteProgress = .now() }
        client.pendingBytes += n
        if isReport { client.pendingReports += 1 }
        client.channel.writeAndFlush(bytes).whenComplete { [statistics] result in
            client.pendingBytes -= n
            client.lastWriteProgress = .now()
            guard isReport else { return }
            client.pendingReports -= 1
            if case .success = result { statistics.update { $0.reportsSent += 1 } }
        }
    }

    // MARK: Requests

    func received(_ bytes: [UInt8], from client: GpsdClient) {
        guard !client.closing else { return }
        let now = NIODeadline.now()
        for result in client.parser.feed(bytes) {
            client.lastRequest = now
            switch result {
            case .success(let request):
                statistics.update { $0.requests += 1 }
                answer(request, from: client)
            case .failure(.tooLong(let limit)):
                let report = GpsdReportWriter.error(GpsdRequestProblem.tooLong(limit: limit).message)
                let channel = client.channel
                client.closing = true
                statistics.update {
                    $0.requestsTooLong += 1
                    $0.droppedSlowClient += client.pendingReports
                }
                release(client)
                channel.writeAndFlush(channel.allocator.buffer(bytes: report)).whenComplete { _ in channel.close(promise: nil) }
                return
            case .failure(let problem):
                statistics.update {
                    $0.requests += 1
                    $0.badRequests += 1
                }
                send(GpsdReportWriter.error(problem.message), to: client)
            }
            if client.closing { return }
        }
        if client.parser.hasPartialRequest {
            if client.partialSince == nil { client.partialSince = now }
        } else {
            client.partialSince = nil
        }
    }

    private func refuse(_ message: String, to client: GpsdClient) {
        statistics.update { $0.badRequests += 1 }
        send(GpsdReportWriter.error(message), to: client)
    }

    private func answer(_ request: GpsdRequest, from client: GpsdClient) {
        switch request {
        case .version:
            send(versionReport, to: client)
        case .watch(nil):
            send(GpsdReportWriter.watch(client.watch), to: client)
        case .watch(let change?):
            var watch = client.watch.applying(change)
            if watch.nmea || watch.raw > 0, !deviceOrder.contains(where: { (watch.device == nil || $0 == watch.device) && devices[$0]?.passesNMEA == true }) {
                // Honest: most sources publish decoded fixes, not the receiver's sentences.
                refuse("No NMEA to pass through: no source here passes its receiver's sentences on (an nmea-serial source does with publish_sentences: true); nmea and raw set to off", to: client)
                watch.nmea = false
                watch.raw = 0
                if watch.enable, change.json == nil { watch.json = true }
            }
            let wasWatching = client.watch.enable
            client.watch = watch
            if watch.enable != wasWatching { statistics.update { $0.clientsWatching = watchingCount() } }
            if watch.enable {
                send(GpsdReportWriter.devices(deviceList(matching: watch.device)), to: client)
            }
            send(GpsdReportWriter.watch(watch), to: client)
        case .poll:
            let records = deviceOrder.compactMap { devices[$0] }
            send(GpsdReportWriter.poll(time: Self.wallClock, tpvs: records.compactMap(\.lastTPV), skies: records.compactMap(\.lastSky)),
                 to: client)
        case .devices:
            send(GpsdReportWriter.devices(deviceList(matching: nil)), to: client)
        case .device(let d):
            if let d, !d.changes.isEmpty {
                refuse("Locus does not change a device's settings over gpsd's protocol (\(d.changes.joined(separator: ", "))): set them on the source in config.yaml", to: client)
                return
            }
            let path = d?.path ?? deviceOrder.first
            guard let path else {
                refuse("No devices: no source has published a fix or sky view yet", to: client)
                return
            }
            guard let record = devices[path] else {
                refuse("No device '\(path)': the devices are Locus's sources (\(deviceOrder.joined(separator: ", ")))", to: client)
                return
            }
            send(GpsdReportWriter.device(record.info), to: client)
        }
    }

    private func deviceList(matching path: String?) -> [GpsdReportWriter.Device] {
        deviceOrder.compactMap { p in path == nil || p == path ? devices[p]?.info : nil }
    }

    // MARK: Reports

    /// A device's new fix or sky view: remembered for ?POLL and written to every client that
    /// watches the device.
    func publish(_ update: GpsdDeviceUpdate) {
        let device = update.device
        let now = NIODeadline.now()
        if devices[device] == nil {
            guard devices.count < configuration.maxDevices else {
                statistics.update { $0.droppedTooManyDevices += 1 }
                return
            }
            let info = GpsdReportWriter.Device(path: device, driver: driver, activated: Self.wallClock)
            devices[device] = DeviceRecord(info: info, lastReport: now)
            deviceOrder.append(device)
            // gpsd tells watchers about a device when it is activated.
            broadcast(GpsdReportWriter.device(info), device: device)
        }
        devices[device]?.lastReport = now
        switch update {
        case .fix(let fix, let time, _):
            let tpv = GpsdTPVReport(fix: fix, time: time, device: device, previous: devices[device]?.lastTPV)
            devices[device]?.lastTPV = tpv
            devices[device]?.lastFix = fix
            broadcast(GpsdReportWriter.tpv(tpv), device: device)
        case .sky(let sky, let time, _):
            let report = GpsdSkyReport(sky: sky, time: time, device: device, dops: devices[device]?.lastFix)
            devices[device]?.lastSky = report
            broadcast(GpsdReportWriter.sky(report), device: device)
        case .sentence(let sentence, _):
            devices[device]?.passesNMEA = true
            broadcast(Array(sentence.utf8) + [0x0D, 0x0A]) { $0.watchesSentences(of: device) }
        }
    }

    func broadcast(_ bytes: [UInt8], device: String) {
        broadcast(bytes) { $0.watches(device) }
    }

    private func broadcast(_ bytes: [UInt8], to wants: (GpsdClient) -> Bool) {
        let buffer = ByteBuffer(bytes: bytes)
        for client in clients.values where wants(client) {
            send(buffer, to: client, isReport: true)
        }
    }

    // MARK: Timeouts

    /// Closes clients past their time bounds and expires silent devices. Run every quarter second.
    func sweep() {
        let now = NIODeadline.now()
        expireDevices(now: now)
        let write = TimeAmount.nanoseconds(Int64(configuration.writeTimeout * 1e9))
        let request = TimeAmount.nanoseconds(Int64(configuration.requestTimeout * 1e9))
        let idle = TimeAmount.nanoseconds(Int64(configuration.idleTimeout * 1e9))
        for client in Array(clients.values) where !client.closing {
            if client.watch.enable { client.backlog.sample(client.channel) }
            if client.pendingBytes > 0, now - client.lastWriteProgress > write {
                close(client, counting: \.writeTimeouts)
            } else if let since = client.partialSince, now - since > request {
                close(client, counting: \.requestTimeouts)
            } else if !client.watch.enable, now - client.lastRequest > idle {
                close(client, counting: \.idleClosed)
            }
        }
    }

    /// Drops the devices that sent nothing for device_timeout, as gpsd deactivates a device
    /// that went away: its watchers get a DEVICE with activated 0.
    private func expireDevices(now: NIODeadline) {
        let timeout = TimeAmount.nanoseconds(Int64(configuration.deviceTimeout * 1e9))
        let silent = deviceOrder.filter { path in devices[path].map { now - $0.lastReport > timeout } ?? false }
        guard !silent.isEmpty else { return }
        statistics.update { $0.devicesExpired += silent.count }
        for path in silent {
            devices[path] = nil
            broadcast(GpsdReportWriter.deviceGone(path: path), device: path)
        }
        let gone = Set(silent)
        deviceOrder.removeAll { gone.contains($0) }
    }

    /// Closes every client (the sink is stopping).
    func closeAll() {
        for client in clients.values { client.channel.close(promise: nil) }
    }
}

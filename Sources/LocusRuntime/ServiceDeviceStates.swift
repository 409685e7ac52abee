import Foundation
import LocusCore

/// A device state request on its way to one service's task (`PendingServiceCommand.transfer`).
final class DeviceStateRequest: @unchecked Sendable {
    enum Work {
        case export(@Sendable (String) -> Bool)
        case replace(@Sendable (String) -> Bool, [String: [UInt8]])
    }

    let work: Work
    /// What `export` took; written on the service's task before the request is answered.
    var exported: [String: [UInt8]] = [:]

    init(_ work: Work) { self.work = work }
}

/// The daemon's services as a source's `DeviceStateExchange` sees them: each request waits until
/// every service has taken what the source published (and what services published in turn),
/// then runs on each service that moves device state, between two of its batches, like a
/// control command (and, with a state directory, committed like one).
final class ServiceDeviceStates: @unchecked Sendable {
    private let services: [PluginRunner]
    /// Every service and sink: each must have taken what the source and the services published.
    private let consumers: [PluginRunner]

    /// `services`: every service runner of the daemon (those that move device state are asked);
    /// `sinks`: every sink runner (waited for, and those that forward off the server until their
    /// destination acknowledged what they took).
    init(services: [PluginRunner], sinks: [PluginRunner]) {
        self.services = services
        consumers = services + sinks
    }

    /// Whether any service moves device state.
    var isEmpty: Bool { !services.contains { $0.movesDeviceState } }

    func export(for source: String, where isIncluded: @escaping @Sendable (String) -> Bool, timeout: Double) throws -> DeviceStateBundle {
        var bundle = DeviceStateBundle()
        for (runner, request) in try run(after: source, timeout: timeout, { _ in .export(isIncluded) }) {
            bundle.services[runner.plugin.id] = request.exported
        }
        return bundle
    }

    func replace(for source: String, where isIncluded: @escaping @Sendable (String) -> Bool, with bundle: DeviceStateBundle,
                 timeout: Double) throws {
        _ = try run(after: source, timeout: timeout) { .replace(isIncluded, bundle.services[$0.plugin.id] ?? [:]) }
    }

    /// Once the services and sinks have taken what `source` published (`waitForConsumers`), runs
    /// `work(runner)` on every service that moves device state; throws the first refusal. Every
    /// request submitted is waited for, so none is still running when this returns.
    private func run(after source: String, timeout: Double,
                     _ work: (PluginRunner) -> DeviceStateRequest.Work) throws -> [(PluginRunner, DeviceStateRequest)] {
        let deadline = Date().addingTimeInterval(timeout)
        try waitForConsumers(of: source, until: deadline)
        var sent: [(runner: PluginRunner, request: DeviceStateRequest, command: PendingServiceCommand)] = []
        var failure: ControlCommandError?
        for runner in services where runner.movesDeviceState {
            let request = DeviceStateRequest(work(runner))
            let command = PendingServiceCommand(transfer: request)
            do { try runner.submit(command) } catch { failure = failure ?? Self.failure(error); continue }
            sent.append((runner, request, command))
        }
        for s in sent {
            if case .failure(let e) = s.command.blockingReply(timeout: deadline.timeIntervalSinceNow, timedOut: Self.timedOut) {
                failure = failure ?? e
            }
        }
        if let failure { throw failure }
        return sent.map { ($0.runner, $0.request) }
    }

    /// Waits until every service and sink has taken every message `source` and the services
    /// published so far, and sinks that forward off the server have it acknowledged. Two clear
    /// passes in a row: a service checked early in the first may have been handed an event by
    /// one checked after it, and the second pass sees that (the source publishes nothing
    /// meanwhile, so services publish only what its messages already caused).
    private func waitForConsumers(of source: String, until deadline: Date) throws {
        let producers = Set([source] + services.map(\.plugin.id))
        func done(_ r: PluginRunner) -> Bool { r.hasConsumed(everythingOf: producers) && r.isDeliverySettled }
        var clearPasses = 0
        while clearPasses < 2 {
            if consumers.allSatisfy(done) {
                clearPasses += 1
                continue
            }
            clearPasses = 0
            guard Date() < deadline else {
                let behind = consumers.filter { !done($0) }.map(\.plugin.id)
                throw ControlCommandError("\(behind.joined(separator: ", ")) did not take (or deliver) the messages published so far in time")
            }
            Thread.sleep(forTimeInterval: 0.001)
        }
    }

    private static let timedOut = ControlCommandError("a service did not get to the device state request in time (it is behind on its messages)")

    private static func failure(_ error: any Error) -> ControlCommandError {
        error as? ControlCommandError ?? ControlCommandError("\(error)")
    }
}

/// One source's view of `ServiceDeviceStates`.
struct SourceDeviceStates: DeviceStateExchange {
    let services: ServiceDeviceStates
    let source: String

    func export(where isIncluded: @escaping @Sendable (String) -> Bool, timeout: Double) throws -> DeviceStateBundle {
        try services.export(for: source, where: isIncluded, timeout: timeout)
    }

    func replace(where isIncluded: @escaping @Sendable (String) -> Bool, with bundle: DeviceStateBundle, timeout: Double) throws {
        try services.replace(for: source, where: isIncluded, with: bundle, timeout: timeout)
    }
}

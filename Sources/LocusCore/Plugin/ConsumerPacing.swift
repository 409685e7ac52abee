/// Lets a source that can wait — one reading a file — hold back until the daemon's own
/// consumers have caught up, instead of outrunning them into buffers that must drop.
///
/// The runtime implements it (see `DeliveryGate` in LocusRuntime); outside the daemon there is
/// nothing to wait for. Implementers must return promptly when nobody is behind (it is called
/// before every message) and must return when the calling task is cancelled.
public protocol ConsumerPacing: Sendable {
    /// Returns once every in-process subscriber is within a bounded distance of what has been
    /// published on the topics it subscribes to.
    func waitForConsumers() async
}

/// Told of every message an `EventPublisher` sends, in order, with the sequence number it got.
/// Called under the publisher's lock: implementers must be quick and must not publish.
public protocol PublishObserver: Sendable {
    func published(producer: String, topic: String, seq: UInt64)
}

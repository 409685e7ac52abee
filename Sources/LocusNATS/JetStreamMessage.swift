/// A message read from a stream: its subject, its bytes and where it is in the stream.
public struct JetStreamMessage: Sendable, Equatable {
    public var subject: String
    public var payload: [UInt8]
    /// The stream sequence: a position a consumer can start after.
    public var sequence: UInt64
    /// When the stream stored it, nanoseconds since the epoch.
    public var timestampNs: Int64
    /// Messages left in the consumer after this one (the consumer's lag).
    public var pending: UInt64
}

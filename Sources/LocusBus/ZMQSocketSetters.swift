/// Named shorthands for `setOption`, one per option Locus sets. Same rules: call them on the
/// owning thread, before `bind`/`connect` where libzmq requires it.
extension ZMQSocket {
    /// Milliseconds `close()` keeps unsent messages: -1 forever, 0 discard.
    public func setLinger(_ milliseconds: Int) throws { try setOption(.linger(milliseconds: milliseconds)) }
    /// Outgoing queue limit in messages per peer; 0 = unlimited.
    public func setSendHighWaterMark(_ messages: Int) throws { try setOption(.sendHighWaterMark(messages)) }
    /// Incoming queue limit in messages per peer; 0 = unlimited.
    public func setReceiveHighWaterMark(_ messages: Int) throws { try setOption(.receiveHighWaterMark(messages)) }
    /// Largest inbound message over ipc/tcp in bytes (-1 = no limit); see `ZMQSocketOption.maxMessageSize`.
    public func setMaxMessageSize(_ bytes: Int) throws { try setOption(.maxMessageSize(bytes)) }
    /// Milliseconds a blocking receive waits before returning nil; -1 = forever.
    public func setReceiveTimeout(_ milliseconds: Int) throws { try setOption(.receiveTimeout(milliseconds: milliseconds)) }
    /// Milliseconds a blocking send waits before returning false; -1 = forever.
    public func setSendTimeout(_ milliseconds: Int) throws { try setOption(.sendTimeout(milliseconds: milliseconds)) }
    /// XPUB: pass every subscription message to the application.
    public func setXPubVerbose(_ on: Bool) throws { try setOption(.xpubVerbose(on)) }
}

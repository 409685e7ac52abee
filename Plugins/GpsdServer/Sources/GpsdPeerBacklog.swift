import NIOCore

/// What a client has left unread, as far as the kernel lets the server see it (issue 49 item
/// 1). A watcher that never reads first fills its own receive buffer, and only then does any
/// byte wait in Locus (`GpsdClient.stalledSince`); meanwhile the window its kernel advertises
/// shrinks by what it holds unread. So: the largest window this connection ever advertised,
/// less the one it advertises now, plus what waits unsent in our kernel.
///
/// Measured on loopback (Linux 6.18, 16 KiB SO_SNDBUF): a reader's window stays at its largest
/// (65 536, later 133 120 bytes); a non-reader's falls, but late and by a fraction of what it
/// holds: against `locus run` at 1 Hz (~550 bytes a second a watcher) 82 944 -> 78 848 bytes
/// with 17 KB unread after 30 s; with 200-byte writes at 4 KB/s not at all in the first 100 KB.
/// Sooner, the kernel tells nothing, so a fresh flood can still refuse newcomers for a while.
struct GpsdPeerBacklog {
    /// Linux's struct tcp_info, read whole: Glibc's struct stops at tcpi_total_retrans (kernel
    /// 2.6), without the fields used here. The kernel fills what it has (232 bytes on 6.x) and
    /// NIO zeroes the rest, so an older kernel reads as window 0: no estimate from the window.
    typealias RawTCPInfo = SIMD64<UInt32>
    /// Word offsets in linux/tcp.h's struct tcp_info (a stable ABI: fields are only appended).
    static let notSentWord = 144 / 4   // tcpi_notsent_bytes (Linux 4.6)
    static let bytesAckedWord = 120 / 4   // tcpi_bytes_acked, a little-endian UInt64 (Linux 4.1)
    static let sendWindowWord = 228 / 4   // tcpi_snd_wnd (Linux 5.4)

    /// More than this left unread makes a watcher evictable for a newcomer to a full server:
    /// a few reports. A client that reads each report when it comes leaves about none (its window
    /// stays at its largest).
    static let evictableBytes = 4 * 1024

    /// The least a watcher must have taken before it counts as a reader (`proven`), whatever
    /// its window: more than Linux's default receive buffer (tcp_rmem's 128 KiB) holds.
    static let leastProofBytes: UInt64 = 160 * 1024

    /// The largest window the peer advertised so far.
    private(set) var largestWindow: UInt32 = 0
    /// The latest estimate of bytes it has not read, in bytes.
    private(set) var unread = 0
    /// Bytes its kernel has acknowledged since it connected.
    private(set) var acknowledged: UInt64 = 0

    /// Whether the peer has shown that it reads: its kernel acknowledged more than it could
    /// hold unread and it leaves about nothing unread now. A receive buffer holds at most about
    /// twice the window it advertises (Linux advertises a share of the buffer, half by
    /// default), and our send buffer holds the rest; so a non-reader, whatever SO_RCVBUF it
    /// set, is not proven before its window falls, which makes it `unread`-evictable anyway.
    /// Until then a client is evictable as the oldest unproven watcher, the last resort that
    /// lets a newcomer in during the first minutes of a flood, when the kernel tells nothing.
    var proven: Bool {
        let capacity = 2 * UInt64(largestWindow) + UInt64(GpsdServerSink.sendBufferBytes)
        return acknowledged > max(capacity, Self.leastProofBytes) && unread <= Self.evictableBytes
    }

    /// Samples `channel`'s TCP_INFO (on its event loop, where the answer is immediate) and
    /// updates the estimate; a channel that is not a socket, or a failed call, changes nothing.
    mutating func sample(_ channel: Channel) {
        guard channel.eventLoop.inEventLoop, let provider = channel as? SocketOptionProvider else { return }
        var info: RawTCPInfo?
        provider.unsafeGetSocketOption(level: .tcp, name: .tcp_info).assumeIsolated().whenSuccess { (value: RawTCPInfo) in
            info = value
        }
        guard let info else { return }
        let acked = UInt64(info[Self.bytesAckedWord]) | UInt64(info[Self.bytesAckedWord + 1]) << 32
        update(window: info[Self.sendWindowWord], notSent: info[Self.notSentWord], acknowledged: acked)
    }

    /// The estimate from one sample: the window's fall from its largest, plus our unsent bytes.
    mutating func update(window: UInt32, notSent: UInt32, acknowledged: UInt64 = 0) {
        largestWindow = max(largestWindow, window)
        unread = Int(largestWindow - window) + Int(notSent)
        self.acknowledged = max(self.acknowledged, acknowledged)
    }
}

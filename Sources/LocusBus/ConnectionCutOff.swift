import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Closes one outside connection of a ZeroMQ socket, which has no call for that.
///
/// The connection's descriptor (ZeroMQ's `ZMQ_SRCFD` of a message it sent) is shut down, not
/// closed: ZeroMQ's I/O thread then reads end-of-stream and closes the connection itself, as if
/// the peer had gone, and the descriptor stays ZeroMQ's to close, so it is never closed twice.
///
/// A message may be read after its connection closed and its descriptor went to a new one, so
/// the descriptor's peer is first compared with the message's `Peer-Address` (ZeroMQ's own
/// metadata: the IP for tcp; `:uid:gid:pid` from `SO_PEERCRED` for ipc). A different peer is
/// left alone. (Two connections from the same address cannot be told apart this way: the
/// innocent one would reconnect, as ZeroMQ clients do.)
enum ConnectionCutOff {
    enum Outcome: Equatable {
        case shutDown
        /// The descriptor now belongs to another peer, or is not a socket any more.
        case peerChanged
        /// `shutdown` failed (errno), e.g. the connection was already gone.
        case failed(Int32)
    }

    static func cutOff(fd: Int32, expectedPeer: String?) -> Outcome {
        guard let expectedPeer, let actual = peerAddress(of: fd), actual == expectedPeer else { return .peerChanged }
        return shutdown(fd, Int32(SHUT_RDWR)) == 0 ? .shutDown : .failed(errno)
    }

    /// The peer of socket `fd` written as ZeroMQ 4.3 writes `Peer-Address` (its stream engine:
    /// `getnameinfo` with `NI_NUMERICHOST`, empty when that fails, and for a Unix socket the
    /// peer's `:uid:gid:pid`), or nil if `fd` is not a connected socket.
    static func peerAddress(of fd: Int32) -> String? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let got = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
        }
        guard got == 0 else { return nil }
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let rc = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST)
            }
        }
        guard rc == 0 else { return "" }
        let address = String(cString: host)
        #if os(Linux)
        if Int32(storage.ss_family) == AF_UNIX {
            var cred = PeerCredentials()
            var size = socklen_t(MemoryLayout<PeerCredentials>.size)
            guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &size) == 0 else { return address }
            return address + ":\(cred.uid):\(cred.gid):\(cred.pid)"
        }
        #endif
        return address
    }

    /// Linux's `struct ucred` (glibc declares it only under `_GNU_SOURCE`, which Swift's Glibc
    /// module does not set): what `SO_PEERCRED` fills in.
    private struct PeerCredentials {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }
}

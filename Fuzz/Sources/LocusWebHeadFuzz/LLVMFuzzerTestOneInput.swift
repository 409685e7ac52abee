import LocusCore
import LocusWebPlugin
import LocusWebFuzzSupport
import NIOCore
import NIOEmbedded
import NIOHTTP1

/// libFuzzer's per-input callback: the input as the bytes one client sends the web gateway on
/// a connection, read as the gateway reads them — its `RequestHeadGuard` (`max_header_bytes`
/// 1,024 here, so short inputs reach it; timeouts as configured by default) in front of NIO's
/// HTTP/1 request decoder with the decoder limits the gateway sets — on an `EmbeddedChannel`,
/// delivered in pieces (`ChunkPlan`) until the pipeline fails or closes, as the server would
/// close the connection. Invariants, against `HeadExtent`, an independent reading of where the
/// first head is:
/// - a head over the limit is always refused (431) once the piece that crosses the limit came,
///   none of that piece reached the decoder, and the decoder produced no request head;
/// - a 431 is only ever sent for such a head, and a 408 never before its timeout;
/// - a head still incomplete (within the limit) 11 s after its first byte has been answered
///   408; a connection that sent no head is closed after the idle timeout (61 s) and counted.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    var configuration = WebConfiguration()
    configuration.maxHeaderBytes = maxHeaderBytes
    let limits = ConnectionLimits(configuration)
    let counters = SourceCounters<WebCounters>()
    let forwarded = ByteCounter()
    let heads = HeadRecorder()
    var decoderLimits = NIOHTTPDecoderLimitConfiguration()
    decoderLimits.maxHeaderFieldSize = maxHeaderBytes
    decoderLimits.maxHeaderListSize = maxHeaderBytes
    let channel = EmbeddedChannel()
    do {
        try channel.pipeline.syncOperations.addHandlers([
            limits.requestHeadGuard(counters: counters), forwarded,
            ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes, limitConfiguration: decoderLimits)),
            heads,
        ])
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
    } catch {
        fatalError("invariant broken: cannot set up the pipeline: \(error)")
    }
    let extent = HeadExtent(bytes)
    // The bytes of the piece during which the pipeline failed or closed, if any.
    var fed = 0, stoppedWithin: Range<Int>?
    var plan = ChunkPlan(bytes)
    for piece in plan.pieces(of: bytes) {
        let range = fed..<(fed + piece.count)
        fed += piece.count
        do {
            try channel.writeInbound(ByteBuffer(bytes: piece))
        } catch {
            stoppedWithin = range
            break
        }
        if !channel.isActive {
            stoppedWithin = range
            break
        }
    }
    let answer = String(decoding: outbound(channel), as: UTF8.self)
    let refused431 = answer.hasPrefix("HTTP/1.1 431 ")

    if let crossing = extent.crossing {
        // The guard saw the crossing piece unless the decoder failed on an earlier one.
        let reached = crossing < (stoppedWithin?.upperBound ?? bytes.count)
        if reached {
            require(refused431, "a head of \(extent.headBytes) bytes past the \(maxHeaderBytes)-byte limit was not refused: \(answer.prefix(40))")
            require(forwarded.bytes <= crossing, "bytes at or after the crossing reached the decoder (\(forwarded.bytes) > \(crossing))")
            require(heads.count == 0, "the decoder produced a head the guard refused")
            require(counters.counters.headsTooLarge == 1, "the refusal was not counted")
        }
    } else {
        require(!refused431, "431 for a head within the limit (\(extent.headBytes) bytes)")
        require(counters.counters.headsTooLarge == 0, "a refusal counted for a head within the limit")
    }
    require(!answer.hasPrefix("HTTP/1.1 408 "), "408 before any time passed")

    // Time passes: a head that never completed times out; a connection with no head idles out.
    if channel.isActive, !refused431 {
        if extent.start < fed, extent.end.map({ $0 > fed }) ?? true {
            channel.embeddedEventLoop.advanceTime(by: .seconds(11))
            let late = String(decoding: outbound(channel), as: UTF8.self)
            require(late.hasPrefix("HTTP/1.1 408 "), "a head incomplete for 11 s was not answered 408: \(late.prefix(40))")
            require(counters.counters.headerTimeouts == 1, "the header timeout was not counted")
        } else if extent.start >= fed {
            channel.embeddedEventLoop.advanceTime(by: .seconds(61))
            require(!channel.isActive && counters.counters.idleClosed == 1, "a connection with no request was not closed after the idle timeout")
        }
    }
    _ = try? channel.finish(acceptAlreadyClosed: true)
    return 0
}

/// What the guard allows here (the gateway's default is 32 KiB).
let maxHeaderBytes = 1024

/// Where the input's first request head is: empty lines before it are skipped (RFC 9112 2.2),
/// it ends after its first empty line (LF, or CR LF, after a LF). Written apart from the guard.
struct HeadExtent {
    /// The head's first byte (the input's length if there is none).
    let start: Int
    /// Just after the head's last byte, if it ends.
    let end: Int?
    /// The index of the head's first byte past the limit, if it has one.
    let crossing: Int?

    /// The head's length, -1 when it does not end.
    var headBytes: Int { end.map { $0 - start } ?? -1 }

    init(_ bytes: [UInt8]) {
        var i = 0
        while i < bytes.count, bytes[i] == 0x0D || bytes[i] == 0x0A { i += 1 }
        start = i
        var end: Int?
        var lineIsEmpty = false   // the head's first line is never empty: it starts with a non-CR/LF byte
        var j = i
        while j < bytes.count {
            switch bytes[j] {
            case 0x0A:
                if lineIsEmpty { end = j + 1 }
                lineIsEmpty = true
            case 0x0D: break
            default: lineIsEmpty = false
            }
            if end != nil { break }
            j += 1
        }
        self.end = end
        let last = (end ?? bytes.count)   // exclusive
        crossing = last - start > maxHeaderBytes ? start + maxHeaderBytes : nil
    }
}

/// Counts the bytes the guard lets through to the decoder.
final class ByteCounter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    var bytes = 0
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        bytes += unwrapInboundIn(data).readableBytes
        context.fireChannelRead(data)
    }
}

/// Counts the request heads the decoder produced.
final class HeadRecorder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    var count = 0
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) { count += 1 }
    }
}

/// Everything the pipeline wrote to the client so far.
func outbound(_ channel: EmbeddedChannel) -> [UInt8] {
    var out: [UInt8] = []
    while let b = try? channel.readOutbound(as: ByteBuffer.self) { out += b.readableBytesView }
    return out
}

func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("invariant broken: \(message())") }
}

import LocusWebPlugin
import LocusWebFuzzSupport
import NIOCore
import NIOEmbedded
import NIOWebSocket

/// libFuzzer's per-input callback: the input as the bytes a client sends on the gateway's
/// `/ws` after the upgrade, read by NIOWebSocket's frame decoder with the maximum frame size
/// the gateway gives Hummingbird (`WebServer.webSocketMaxMessageBytes`, 64 KiB), on an
/// `EmbeddedChannel`, delivered in pieces (`ChunkPlan`) until the decoder fails. Invariants,
/// against `FrameHeader`, an independent reading of the frames:
/// - the frames decoded are exactly the input's complete frames up to the first refused one,
///   with their opcode, FIN bit and length; none longer than the limit;
/// - a frame is refused (longer than the limit, or a control frame that is fragmented or over
///   125 bytes) as soon as its length is known: by the piece holding its length's last byte,
///   so the decoder never waits for (and buffers) the payload of a frame it will refuse.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let maxFrame = WebServer.webSocketMaxMessageBytes
    let frames = FrameRecorder()
    let channel = EmbeddedChannel()
    do {
        try channel.pipeline.syncOperations.addHandlers([ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: maxFrame)), frames])
    } catch {
        fatalError("invariant broken: cannot set up the pipeline: \(error)")
    }
    var fed = 0
    var failedWithin: Range<Int>?
    var plan = ChunkPlan(bytes)
    for piece in plan.pieces(of: bytes) {
        let range = fed..<(fed + piece.count)
        fed += piece.count
        do {
            try channel.writeInbound(ByteBuffer(bytes: piece))
        } catch {
            failedWithin = range
            break
        }
    }

    // The input's frames, read apart from NIO.
    var expected: [FrameHeader] = []
    var refusedAt: Int?   // the offset of the refused frame's length's last byte
    var at = 0
    while let header = FrameHeader(bytes, at: at) {
        if header.length > UInt64(maxFrame) || (header.isControl && (!header.fin || header.length > 125)) {
            refusedAt = header.lengthEnd - 1
            break
        }
        let end = header.payloadStart + Int(header.length)
        guard end <= bytes.count else { break }
        expected.append(header)
        at = end
    }

    if let refusedAt {
        let failed = failedWithin.map { $0.contains(refusedAt) } ?? false
        require(failed, "a frame to refuse (declared length ending at offset \(refusedAt)) was not refused by the piece holding it (failed within \(failedWithin.map { "\($0)" } ?? "none"))")
    } else {
        require(failedWithin == nil, "the decoder failed within \(failedWithin!) on frames that are all acceptable")
    }
    require(frames.got.count == expected.count, "decoded \(frames.got.count) frames, expected \(expected.count)")
    for (got, want) in zip(frames.got, expected) {
        require(got.length <= maxFrame, "a frame of \(got.length) bytes passed the \(maxFrame)-byte limit")
        require(got.opcode == want.opcode && got.fin == want.fin && UInt64(got.length) == want.length,
                "frame \(got) differs from its header: opcode \(want.opcode), fin \(want.fin), length \(want.length)")
    }
    _ = try? channel.finish(acceptAlreadyClosed: true)
    return 0
}

/// One frame's header as RFC 6455 5.2 lays it out, read without NIO.
struct FrameHeader {
    let fin: Bool
    let opcode: UInt8
    let length: UInt64
    /// Just after the length field (the mask key, if any, follows).
    let lengthEnd: Int
    let payloadStart: Int

    var isControl: Bool { opcode & 0x08 != 0 }

    /// The header at `at`, or nil if the input ends before its length is known.
    init?(_ bytes: [UInt8], at: Int) {
        guard at + 2 <= bytes.count else { return nil }
        fin = bytes[at] & 0x80 != 0
        opcode = bytes[at] & 0x0F
        let masked = bytes[at + 1] & 0x80 != 0
        var n = UInt64(bytes[at + 1] & 0x7F)
        var p = at + 2
        let extra = n == 126 ? 2 : n == 127 ? 8 : 0
        if extra > 0 {
            guard p + extra <= bytes.count else { return nil }
            n = bytes[p..<(p + extra)].reduce(0) { $0 << 8 | UInt64($1) }
            p += extra
        }
        length = n
        lengthEnd = p
        payloadStart = p + (masked ? 4 : 0)
    }
}

/// The frames the decoder produced.
final class FrameRecorder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    var got: [(opcode: UInt8, fin: Bool, length: Int)] = []
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        got.append((UInt8(webSocketOpcode: frame.opcode), frame.fin, frame.length))
    }
}

func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("invariant broken: \(message())") }
}

import CZeroMQ

/// The ZeroMQ socket patterns Locus uses.
public enum ZMQSocketType: Sendable, CaseIterable {
    case pub, sub, xpub, xsub, req, rep, dealer, router, push, pull, pair

    var rawValue: Int32 {
        switch self {
        case .pub: return ZMQ_PUB
        case .sub: return ZMQ_SUB
        case .xpub: return ZMQ_XPUB
        case .xsub: return ZMQ_XSUB
        case .req: return ZMQ_REQ
        case .rep: return ZMQ_REP
        case .dealer: return ZMQ_DEALER
        case .router: return ZMQ_ROUTER
        case .push: return ZMQ_PUSH
        case .pull: return ZMQ_PULL
        case .pair: return ZMQ_PAIR
        }
    }
}

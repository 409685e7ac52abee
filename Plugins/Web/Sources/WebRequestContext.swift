import Hummingbird
import NIOCore

/// The request context of the gateway's routes: Hummingbird's basic one plus the connection,
/// which an event stream closes when its client is cut off (a writer waiting on a client that
/// does not read would not notice its stream ending).
struct WebRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}

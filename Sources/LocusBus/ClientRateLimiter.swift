/// Requests per second per client, as a token bucket per client key: each client may send
/// `perSecond` on average, in bursts of up to `burst`. Remembers at most `maxClients` clients
/// (the ones heard from longest ago are forgotten first), so a flood of new connections cannot
/// grow it. Owned by one thread.
struct ClientRateLimiter {
    let perSecond: Double
    let burst: Double
    static let maxClients = 4096

    private var buckets: [[UInt8]: (tokens: Double, at: ContinuousClock.Instant)] = [:]

    /// `perSecond` 0 means no limit.
    init(perSecond: Double, burst: Double? = nil) {
        self.perSecond = perSecond
        self.burst = max(1, burst ?? perSecond * 2)
    }

    /// Clients remembered now.
    var clientCount: Int { buckets.count }

    /// True if `client` may send one more now (and counts it).
    mutating func allow(_ client: [UInt8], now: ContinuousClock.Instant = .now) -> Bool {
        guard perSecond > 0 else { return true }
        var bucket = buckets[client] ?? (burst, now)
        let elapsed = now - bucket.at
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        bucket.tokens = min(burst, bucket.tokens + seconds * perSecond)
        bucket.at = now
        let allowed = bucket.tokens >= 1
        if allowed { bucket.tokens -= 1 }
        if buckets[client] == nil, buckets.count >= Self.maxClients {
            // Forget the quietest half: full buckets hold nothing worth keeping.
            let cut = buckets.sorted { $0.value.at < $1.value.at }.prefix(Self.maxClients / 2).map(\.key)
            for k in cut { buckets[k] = nil }
        }
        buckets[client] = bucket
        return allowed
    }
}

import Foundation

/// A source's counters, updated from its task and readable from any other (tests, diagnostics).
public final class SourceCounters<Counters: Sendable>: @unchecked Sendable {
    /// Guards `value`.
    private let lock = NSLock()
    private var value: Counters

    public init(_ initial: Counters) { value = initial }

    public var counters: Counters { lock.withLock { value } }

    public func update(_ body: (inout Counters) -> Void) { lock.withLock { body(&value) } }

    public func update(_ newValue: Counters) { lock.withLock { value = newValue } }
}

/// Counters that start from zero: a source's counter struct conforms, and its
/// `SourceCounters<…>()` then needs no initial value.
public protocol ZeroedCounters: Sendable {
    init()
}

extension SourceCounters where Counters: ZeroedCounters {
    /// Counters starting at zero.
    public convenience init() { self.init(Counters()) }
}

/// HDT, Heading True. Fields: 1 heading (degrees true), 2 `T`. Where the vessel points, which
/// is not the course over ground.
struct HDT {
    var heading: Double?

    init(_ s: NMEASentenceView) {
        heading = s.double(1)
        if let h = heading, !(0...360).contains(h) { heading = nil }
    }
}

extension Double {
    /// The value for a `reason` text, at most three decimals and no trailing zeros: 10 → "10",
    /// 2.5 → "2.5". Reasons are part of the golden output, so this must not depend on the locale.
    var reasonText: String {
        let r = (self * 1000).rounded() / 1000
        if r == r.rounded(), abs(r) < 1e15 { return String(Int64(r)) }
        return String(r)
    }
}

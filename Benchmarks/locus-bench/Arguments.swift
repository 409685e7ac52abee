/// Reads the count argument: plain digits with optional `k`/`M` suffix (`1M`, `200k`).
func parseCount(_ text: String?) -> Int? {
    guard var t = text, !t.isEmpty else { return nil }
    var scale = 1
    if t.hasSuffix("M") { scale = 1_000_000; t.removeLast() } else if t.hasSuffix("k") { scale = 1000; t.removeLast() }
    guard let n = Int(t.replacingOccurrences(of: "_", with: "")), n > 0 else { return nil }
    return n * scale
}

func rate(_ count: Int, _ seconds: Double) -> String {
    String(Int((Double(count) / seconds).rounded()))
}

/// "Did you mean" suggestions for misspelt keys, plugin types and section names.
enum ConfigSuggestions {
    /// Edit distance counting insertions, deletions, substitutions and swaps of neighbouring
    /// characters (optimal string alignment), so `sped`→`speed` and `soruces`→`sources` are 1.
    static func distance(_ a: String, _ b: String) -> Int {
        let s = Array(a), t = Array(b)
        if s.isEmpty { return t.count }
        if t.isEmpty { return s.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: t.count + 1), count: s.count + 1)
        for i in 0...s.count { d[i][0] = i }
        for j in 0...t.count { d[0][j] = j }
        for i in 1...s.count {
            for j in 1...t.count {
                let cost = s[i - 1] == t[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, s[i - 1] == t[j - 2], s[i - 2] == t[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[s.count][t.count]
    }

    /// Names other software uses for what Locus calls the value: `lng` is as far from `lat` as
    /// from `lon` by edits, but means `lon`.
    static let synonyms = ["lng": "lon", "long": "lon", "longitude": "lon", "latitude": "lat"]

    /// The closest candidate within `maxDistance` edits (case is ignored), first in `candidates`
    /// order on ties; else a synonym that is a candidate; else the one candidate that the word
    /// begins (`secret_key` for `secret_key_file`; four letters at least). nil if none is close
    /// or `word` is itself a candidate.
    static func suggestion(for word: String, among candidates: [String], maxDistance: Int = 2) -> String? {
        let w = word.lowercased()
        if let s = synonyms[w], candidates.contains(s), !candidates.contains(word) { return s }
        var best: (String, Int)?
        for c in candidates where c != word {
            let d = distance(w, c.lowercased())
            // Very short words are within two edits of everything; ask for a closer match.
            let limit = min(maxDistance, max(1, min(w.count, c.count) - 1))
            if d <= limit, best == nil || d < best!.1 { best = (c, d) }
        }
        if let best { return best.0 }
        let longer = candidates.filter { $0 != word && w.count >= 4 && $0.lowercased().hasPrefix(w) }
        return longer.count == 1 ? longer[0] : nil
    }

    /// ` (did you mean 'speed'?)`, or "" when nothing is close.
    static func didYouMean(_ word: String, among candidates: [String]) -> String {
        suggestion(for: word, among: candidates).map { " (did you mean '\($0)'?)" } ?? ""
    }
}

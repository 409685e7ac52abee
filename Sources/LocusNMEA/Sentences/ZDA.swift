/// ZDA, Time and Date. Fields: 1 UTC time, 2 day, 3 month, 4 four-digit year, 5–6 local
/// zone hours/minutes (ignored: the time is UTC).
struct ZDA {
    var time: Int?
    /// Days since 1970-01-01.
    var date: Int?

    init(_ s: NMEASentenceView) {
        time = NMEANumber.timeOfDay(s.field(1))
        if let d = s.int(2), let m = s.int(3), let y = s.int(4), (1980...9999).contains(y) {
            date = NMEACalendar.days(year: y, month: m, day: d)
        }
    }
}

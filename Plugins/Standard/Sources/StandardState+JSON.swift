import LocusCore

// The standard service's state changes with every fix it publishes, so it is committed with
// every batch: written here directly, as `JSONEncoder` would write its `Codable` form (keys
// sorted, nil optionals left out). `StandardStateWritingTests` compares the two byte for byte
// over the states of real recordings; decoding stays `Codable`.

extension StandardService.State: JSONWritableState {
    public func writeState(to w: inout JSONWriter) {
        w.beginObject()
        w.key("arbiter" as StaticString)
        arbiter.write(to: &w)
        w.key("diagnostics" as StaticString)
        diagnostics.write(to: &w)
        if let lastPublished {
            w.key("lastPublished" as StaticString)
            lastPublished.write(to: &w)
        }
        if let now { w.field("now", Int(now.milliseconds)) }
        if let pausedAt { w.field("pausedAt", Int(pausedAt.milliseconds)) }
        w.key("stationary" as StaticString)
        stationary.write(to: &w)
        w.endObject()
    }
}

extension FixArbiter.State {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        if let current {
            w.key("current" as StaticString)
            current.write(to: &w)
        }
        if let lastAccepted { w.field("lastAccepted", Int(lastAccepted.milliseconds)) }
        w.endObject()
    }
}

extension StationaryDetector.State {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        if let anchor {
            w.key("anchor" as StaticString)
            anchor.write(to: &w)
        }
        w.field("isStationary", isStationary)
        w.endObject()
    }
}

extension LocationDiagnostics.State {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("accuracyLimited", accuracyLimited)
        w.key("disconnected" as StaticString)
        w.beginArray()
        for source in disconnected { w.string(source) }
        w.endArray()
        w.key("lastFix" as StaticString)
        w.beginObject()
        for source in lastFix.keys.sorted() {
            w.key(source)
            w.int(lastFix[source]!.milliseconds)
        }
        w.endObject()
        if let lastRefused {
            w.key("lastRefused" as StaticString)
            w.beginObject()
            if let accuracy = lastRefused.accuracy {
                w.key("accuracy" as StaticString)
                w.exactDouble(accuracy)
            }
            w.field("source", lastRefused.source)
            w.field("time", Int(lastRefused.time.milliseconds))
            w.endObject()
        }
        if let lastUsable {
            w.key("lastUsable" as StaticString)
            w.beginObject()
            w.field("source", lastUsable.source)
            w.field("time", Int(lastUsable.time.milliseconds))
            w.endObject()
        }
        w.key("reportedDown" as StaticString)
        w.beginObject()
        for source in reportedDown.keys.sorted() {
            w.key(source)
            w.string(reportedDown[source]!)
        }
        w.endObject()
        if let start { w.field("start", Int(start.milliseconds)) }
        w.field("unavailable", unavailable)
        w.endObject()
    }
}

extension TimedFix {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key("coordinate" as StaticString)
        w.beginObject()
        w.key("latitude" as StaticString)
        w.exactDouble(coordinate.latitude)
        w.key("longitude" as StaticString)
        w.exactDouble(coordinate.longitude)
        w.endObject()
        // The fix is kept as its wire JSON, in a string (`Fix: Codable`).
        var fixJSON = JSONWriter()
        fix.write(to: &fixJSON)
        w.key("fix" as StaticString)
        fixJSON.withUnsafeBytes { w.string(utf8: $0) }
        w.field("time", Int(time.milliseconds))
        w.endObject()
    }
}

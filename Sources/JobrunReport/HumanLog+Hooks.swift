import JobrunOutcome

/// A hook's end, as a person reads it: a failure that fails the run is a result line like a
/// failed resource's (`! id: hook on_complete failed: exit status 3 (last output: …)`), one
/// that does not is a warning, one cut short by a stop a notice; a hook that succeeded shows
/// only with `-v`.
extension HumanLog {
    func hookLine(_ end: HookEnd) {
        let redelivery = end.hook.isRedelivery ? " (redelivered, from run \(end.hook.eventRun))" : ""
        if end.wasCut {
            notices("jobrun: hook \(end.hook.description) was stopped with the run\(redelivery); it runs again on the next apply\n")
        } else if end.failsRun {
            let subject = end.hook.resource.map { "! \($0): hook \(end.hook.hook)" } ?? "! hook \(end.hook.hook)"
            results("\(subject) failed: \(end.outcome)\(Self.lastOutput(end.outputTail))\n")
        } else if end.hasFailed {
            notices("jobrun: warning: hook \(end.hook.description) failed: \(end.outcome)\(Self.lastOutput(end.outputTail))\(redelivery)\n")
        } else if detail == .verbose {
            results("  hook \(end.hook.description): \(end.outcome) (\(end.duration.secondsText))\(redelivery)\n")
        }
    }

    /// ` (last output: …)`: the last line the hook wrote that has text, without control
    /// characters (a terminal would obey them), at most 200 characters; empty without one.
    static func lastOutput(_ tail: String) -> String {
        guard let line = tail.split(whereSeparator: \.isNewline).last(where: { !$0.allSatisfy(\.isWhitespace) }) else { return "" }
        var shown = String(String.UnicodeScalarView(line.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }))
        if shown.count > 200 { shown = String(shown.suffix(200)) }
        return " (last output: \(shown))"
    }
}

import JobrunOutcome
import JobrunJSON

/// The hooks of a run's resources in `apply --json` and JUnit (docs/policy.md, "Hooks").
extension ApplyReports {
    /// `"hooks": [...]` of resource `id`: how each of its hooks in this run ended; left out when
    /// none ran.
    static func writeHooks(of id: String, in result: ApplyResult, into w: inout JSONWriter) {
        let hooks = result.hooks.filter { $0.hook.resource == id }
        guard !hooks.isEmpty else { return }
        w.key("hooks")
        w.beginArray()
        for end in hooks {
            w.beginObject()
            w.key("hook"); w.string(end.hook.hook)
            w.key("exit_status"); if let status = end.exitStatus { w.int(Int64(status)) } else { w.null() }
            w.key("signal"); if let signal = end.signal { w.int(Int64(signal)) } else { w.null() }
            w.key("timed_out"); w.bool(end.hasTimedOut)
            w.key("error"); if let error = end.launchError { w.string(error) } else { w.null() }
            w.key("seconds"); w.double(seconds(end.duration))
            w.key("failed"); w.bool(end.hasFailed)
            w.key("on_hook_failure"); w.string(end.policy.rawValue)
            w.key("fails_run"); w.bool(end.failsRun)
            w.key("cut_short"); w.bool(end.wasCut)
            w.key("output_tail"); w.string(end.outputTail)
            w.endObject()
        }
        w.endArray()
    }

    /// A test case per hook of resource `id` whose failure fails the run (`on_hook_failure:
    /// fail`), named `hook on_complete`: passed, `<failure type="HookFailed">` with the end of
    /// its output, or `<skipped>` when the run's stop cut it short. A hook whose failure is a
    /// warning has none: it is not part of the resource's success.
    static func hookCases(of id: String, in result: ApplyResult) -> [JUnitReport.TestCase] {
        result.hooks.filter { $0.hook.resource == id && $0.policy == .fail }.map { end in
            let outcome: JUnitReport.TestCase.Result
            if end.wasCut {
                outcome = .skipped(message: "stopped with the run; it runs again on the next apply")
            } else if end.failsRun {
                let message = "\(end.hook.hook): \(end.outcome)"
                outcome = .failure(
                    type: "HookFailed", message: message,
                    text: "argv: \(end.hook.argv.joined(separator: " "))\n\(message)\noutput (its end):\n\(end.outputTail)")
            } else {
                outcome = .passed
            }
            return JUnitReport.TestCase(classname: id, name: "hook \(end.hook.hook)", time: end.duration, result: outcome)
        }
    }
}

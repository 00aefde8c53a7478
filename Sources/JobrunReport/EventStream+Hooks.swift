import JobrunOutcome
import JobrunJSON

/// `hook_start` and `hook_end` (docs/events.md).
extension EventStream {
    static func writeHook(_ hook: HookRef, _ w: inout JSONWriter) {
        w.key("hook"); w.string(hook.hook)
        w.key("resource"); optional(hook.resource, &w)
        w.key("event_run"); w.string(hook.eventRun)
        w.key("redelivery"); w.bool(hook.isRedelivery)
        w.key("argv"); w.strings(hook.argv)
    }

    static func writeHookEnd(_ end: HookEnd, _ w: inout JSONWriter) {
        writeHook(end.hook, &w)
        w.key("exit_status"); optional(end.exitStatus.map(Int64.init), &w)
        w.key("signal"); optional(end.signal.map(Int64.init), &w)
        w.key("timed_out"); w.bool(end.hasTimedOut)
        w.key("error"); optional(end.launchError, &w)
        w.key("duration_ms"); w.int(end.duration.wholeMilliseconds)
        w.key("output_tail"); w.string(end.outputTail)
        w.key("output_bytes"); w.int(end.outputBytes)
        w.key("failed"); w.bool(end.hasFailed)
        w.key("on_hook_failure"); w.string(end.policy.rawValue)
        w.key("fails_run"); w.bool(end.failsRun)
        w.key("cut_short"); w.bool(end.wasCut)
    }
}

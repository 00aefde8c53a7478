import JobrunCore
import JobrunJSON
import JobrunOutcome

extension JSONWriter {
    /// A publication's fields: `resource`, `state` (`published`, `unchanged`, `not_published`, `failed`),
    /// `reason`, `folder`, `stage`, `retired`, `warning` (after a switch, what the next run finishes) (where the replaced version is kept, `null` when
    /// none is) and `kept_until` (RFC 3339, `null` when none is kept).
    mutating func publishFields(_ p: PublishReport) {
        key("resource"); string(p.resource)
        key("state"); string(p.state.code)
        key("reason"); if let reason = p.state.reason { string(reason) } else { null() }
        key("folder"); string(p.folder)
        key("stage"); string(p.stage)
        key("retired"); if let retired = p.retired { string(retired) } else { null() }
        key("warning"); if let warning = p.warning { string(warning) } else { null() }
        key("kept_until")
        if let until = p.keptUntilMilliseconds { string(RFC3339.utc(milliseconds: until)) } else { null() }
    }
}

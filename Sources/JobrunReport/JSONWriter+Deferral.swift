import JobrunCore
import JobrunPlan
import JobrunJSON

extension JSONWriter {
    /// `"reasons": ["metered"], "details": ["metered network (NetworkManager Metered=YES)"]`.
    mutating func causeFields(_ causes: [Deferral.Cause]) {
        key("reasons")
        beginArray()
        for c in causes { string(c.reason.rawValue) }
        endArray()
        key("details")
        beginArray()
        for c in causes { string(c.detail) }
        endArray()
    }

    /// A deferral's fields: its causes, the message reports show, and when the time rules allow
    /// the work again (`until`, RFC 3339 in UTC, and `until_ms`; null when they do not defer it).
    mutating func deferralFields(_ d: Deferral) {
        causeFields(d.causes)
        key("message"); string(d.message)
        key("until"); if let ms = d.untilMilliseconds { string(RFC3339.utc(milliseconds: ms)) } else { null() }
        key("until_ms"); if let ms = d.untilMilliseconds { int(ms) } else { null() }
    }

    /// `"deferral": {…}` (``deferralFields(_:)``), or `null`.
    mutating func deferral(_ d: Deferral?) {
        key("deferral")
        guard let d else { return null() }
        beginObject()
        deferralFields(d)
        endObject()
    }
}

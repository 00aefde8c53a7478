import JobrunCore
import JobrunOutcome
import JobrunJSON

/// What a hook is told, on stdin as one line of JSON and in `JOBRUN_*` variables, the same
/// facts both ways (docs/policy.md, "Hooks"). Written to the outbox as its JSON line, and read
/// back from it for a redelivery.
///
/// | JSON | variable | |
/// |---|---|---|
/// | `hook` | `JOBRUN_HOOK` | `on_complete`, `on_failure`, `on_deferred`, `on_run_end` |
/// | `event` | `JOBRUN_EVENT` | `resource_done`, `resource_failed`, `resource_skipped`, `resource_deferred`, `run_end` (as in the event stream) |
/// | `run` | `JOBRUN_RUN_ID` | the run the event belongs to |
/// | `due_at` | — | when the hook became due (RFC 3339, UTC, ms) |
/// | `redelivery` | `JOBRUN_REDELIVERY` | `true`/`1` when an earlier run ended before the hook had run |
/// | `resource` | `JOBRUN_RESOURCE` | its id (`null`/unset for the run's end) |
/// | `folder` | `JOBRUN_RESOURCE_FOLDER` | its folder, an absolute path (`null`/unset for the run's end) |
/// | `status` | `JOBRUN_STATUS` | `complete`, `failed`, `skipped`, `deferred`; for the run: `complete`, `failed`, `interrupted`, `deadline`, `offline`, `error` |
/// | `cause` | `JOBRUN_CAUSE` | `slices_failed`, `sync_failed`, `dependency_failed`; the deferral's reasons, comma-separated (or `null`/unset) |
/// | `reason` | `JOBRUN_REASON` | the same in words (or `null`/unset) |
/// | `counts` | `JOBRUN_COUNT_<NAME>` | slices by how they ended, named as in `apply --json` |
/// | `exit_status` | `JOBRUN_EXIT_STATUS` | the run's exit status (`null`/unset for a resource) |
struct HookEvent: Sendable, Hashable, Decodable {
    static let version = 2

    var hook: String
    var event: String
    var run: String
    var dueAt: String
    var isRedelivery = false
    var resource: String?
    var folder: String?
    var status: String
    var cause: String?
    var reason: String?
    var counts: [Count]
    var exitStatus: Int32?

    /// Now, as `due_at` says it.
    static var now: String { RFC3339.utc(milliseconds: RunID.milliseconds()) }

    struct Count: Sendable, Hashable {
        var name: String
        var value: Int64
    }

    init(
        hook: String, event: String, run: String, dueAt: String, resource: String? = nil, folder: String? = nil, status: String,
        cause: String? = nil, reason: String? = nil, counts: [Count], exitStatus: Int32? = nil
    ) {
        self.hook = hook
        self.event = event
        self.run = run
        self.dueAt = dueAt
        self.resource = resource
        self.folder = folder
        self.status = status
        self.cause = cause
        self.reason = reason
        self.counts = counts
        self.exitStatus = exitStatus
    }

    /// The line on the hook's stdin (with its newline), keys in the table's order; every key is
    /// always there, `null` where it does not apply.
    var line: [UInt8] {
        var w = JSONWriter(pretty: false, reservingCapacity: 512)
        w.beginObject()
        w.key("v"); w.int(Int64(Self.version))
        w.key("hook"); w.string(hook)
        w.key("event"); w.string(event)
        w.key("run"); w.string(run)
        w.key("due_at"); w.string(dueAt)
        w.key("redelivery"); w.bool(isRedelivery)
        w.key("resource"); optional(resource, &w)
        w.key("folder"); optional(folder, &w)
        w.key("status"); w.string(status)
        w.key("cause"); optional(cause, &w)
        w.key("reason"); optional(reason, &w)
        w.key("counts")
        w.beginObject()
        for count in counts { w.key(count.name); w.int(count.value) }
        w.endObject()
        w.key("exit_status"); if let exitStatus { w.int(Int64(exitStatus)) } else { w.null() }
        w.endObject()
        var bytes = w.finish()
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    private func optional(_ value: String?, _ w: inout JSONWriter) {
        if let value { w.string(value) } else { w.null() }
    }

    /// The `JOBRUN_*` variables, in the table's order; those whose value is `null` are unset.
    var variables: [(name: String, value: String)] {
        var list: [(name: String, value: String)] = [
            ("JOBRUN_HOOK", hook), ("JOBRUN_EVENT", event), ("JOBRUN_RUN_ID", run), ("JOBRUN_REDELIVERY", isRedelivery ? "1" : "0"),
        ]
        if let resource { list.append(("JOBRUN_RESOURCE", resource)) }
        if let folder { list.append(("JOBRUN_RESOURCE_FOLDER", folder)) }
        list.append(("JOBRUN_STATUS", status))
        if let cause { list.append(("JOBRUN_CAUSE", cause)) }
        if let reason { list.append(("JOBRUN_REASON", reason)) }
        for count in counts { list.append(("JOBRUN_COUNT_" + count.name.uppercased(), String(count.value))) }
        if let exitStatus { list.append(("JOBRUN_EXIT_STATUS", String(exitStatus))) }
        return list
    }

    // MARK: Reading a line back

    private enum Key: String, CodingKey {
        case v, hook, event, run, dueAt = "due_at", isRedelivery = "redelivery", resource, folder, status, cause, reason, counts
        case exitStatus = "exit_status"
    }

    /// Counts keep the order of `apply --json`'s summary; any other name follows, sorted.
    static let countOrder = ApplyResult.Counts().named.map(\.name)

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        let v = try c.decode(Int.self, forKey: .v)
        guard v == Self.version else {
            throw DecodingError.dataCorruptedError(forKey: .v, in: c, debugDescription: "stored by version \(v) of the hooks' JSON")
        }
        hook = try c.decode(String.self, forKey: .hook)
        event = try c.decode(String.self, forKey: .event)
        run = try c.decode(String.self, forKey: .run)
        dueAt = try c.decode(String.self, forKey: .dueAt)
        isRedelivery = try c.decode(Bool.self, forKey: .isRedelivery)
        resource = try c.decodeIfPresent(String.self, forKey: .resource)
        folder = try c.decodeIfPresent(String.self, forKey: .folder)
        status = try c.decode(String.self, forKey: .status)
        cause = try c.decodeIfPresent(String.self, forKey: .cause)
        reason = try c.decodeIfPresent(String.self, forKey: .reason)
        let byName = try c.decode([String: Int64].self, forKey: .counts)
        let rank = Dictionary(uniqueKeysWithValues: Self.countOrder.enumerated().map { ($1, $0) })
        counts = byName.sorted { (rank[$0.key] ?? Int.max, $0.key) < (rank[$1.key] ?? Int.max, $1.key) }
            .map { Count(name: $0.key, value: $0.value) }
        exitStatus = try c.decodeIfPresent(Int32.self, forKey: .exitStatus)
    }

    /// The event of an outbox line, `nil` when it is not one of this ``version``: a line an
    /// earlier version stored means what that version meant, so it goes out as it was written.
    static func read(_ line: String) -> HookEvent? {
        try? JSONDecoder().decode(HookEvent.self, from: Data(line.utf8))
    }
}

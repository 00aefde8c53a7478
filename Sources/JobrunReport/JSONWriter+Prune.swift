import JobrunJSON
import JobrunOutcome
import JobrunPlan

extension JSONWriter {
    /// A prune's fields: `state` (`pruned`, `refused`, `not_run`), `reason`, `max_delete`,
    /// `resources`, `trash` (the trash folder's name, `null` when nothing went there), `pruned`,
    /// `failed`, and `files[]` (`resource`, `path`, `file`, `foreign`, `trash_path`, `error`).
    mutating func pruneFields(_ prune: PruneReport) {
        key("state"); string(prune.state.code)
        key("reason"); if let reason = prune.state.reason { string(reason) } else { null() }
        key("max_delete"); string(prune.limit.description)
        key("resources"); strings(prune.resources)
        key("trash"); if let folder = prune.trashFolder { string(folder) } else { null() }
        key("pruned"); int(Int64(prune.prunedCount))
        key("failed"); int(Int64(prune.failedCount))
        key("files")
        beginArray()
        for file in prune.files {
            beginObject()
            pruneFileFields(file.planned)
            key("trash_path"); if let path = file.trashPath { string(path) } else { null() }
            key("error"); if let error = file.error { string(error) } else { null() }
            endObject()
        }
        endArray()
    }

    /// A file a prune would remove, as a plan and a prune's report both list it: `resource`,
    /// `path`, `file`, `foreign`.
    mutating func pruneFileFields(_ file: PruneFile) {
        key("resource"); string(file.resource)
        key("path"); string(file.path)
        key("file"); string(file.file)
        key("foreign"); bool(file.isForeign)
    }
}

import JobrunJSON
import JobrunManifest

extension JSONWriter {
    /// `catalogs`: one object per resource with a catalog: `resource`, `url`, `state` (`fetched`,
    /// `not_modified`, `cached`, `refused`), `slices`, `changes` (`{added, removed, changed}`
    /// against the copy the last run kept, `null` when there was none) and `error` (why it was
    /// refused, else `null`).
    mutating func catalogs(_ reports: [CatalogReport]) {
        key("catalogs")
        beginArray()
        for report in reports {
            beginObject()
            catalogFields(report)
            endObject()
        }
        endArray()
    }

    /// One catalog's fields, as in ``catalogs(_:)`` and the `catalog` event.
    mutating func catalogFields(_ report: CatalogReport) {
        key("resource"); string(report.resource)
        key("url"); string(report.url)
        key("state"); string(report.state.rawValue)
        key("slices"); int(Int64(report.slices))
        key("changes")
        if let changes = report.changes {
            beginObject()
            key("added"); int(Int64(changes.added))
            key("removed"); int(Int64(changes.removed))
            key("changed"); int(Int64(changes.changed))
            endObject()
        } else {
            null()
        }
        key("error"); if let error = report.error { string(error) } else { null() }
    }
}

import JobrunCore

/// The completion hooks' outbox (``HookOutboxEntry``).
extension StateStore {
    /// Records a hook as due (`entry.id` is ignored).
    /// - Returns: the entry's id.
    public func addHook(_ entry: HookOutboxEntry) throws(StateError) -> Int64 {
        let rows = try db.query(
            """
            INSERT INTO hook_outbox (run_id, event, created_at_ms, argv, timeout_ms, on_hook_failure)
                VALUES (?, ?, ?, ?, ?, ?) RETURNING id
            """,
            [
                .text(entry.runID), .text(entry.event), .integer(entry.createdAtMilliseconds), .text(Self.encode(entry.argv)),
                .integer(entry.timeoutMilliseconds), .text(entry.failurePolicy),
            ])
        guard case .integer(let id)? = rows.first?.first else {
            throw .failed(path: path, operation: "record a due hook", detail: "no id came back")
        }
        return id
    }

    public func markHookDelivered(id: Int64, atMilliseconds delivered: Int64) throws(StateError) {
        try db.query("UPDATE hook_outbox SET delivered_at_ms = ? WHERE id = ?", [.integer(delivered), .integer(id)])
    }

    /// The hooks due and not delivered, oldest first.
    public func undeliveredHooks() throws(StateError) -> [HookOutboxEntry] {
        try db.query(
            """
            SELECT id, run_id, event, argv, timeout_ms, on_hook_failure, created_at_ms FROM hook_outbox
                WHERE delivered_at_ms IS NULL ORDER BY id
            """
        ).compactMap { row in
            guard row.count == 7, case .integer(let id) = row[0], case .text(let run) = row[1], case .text(let event) = row[2],
                case .text(let argv) = row[3], case .integer(let timeout) = row[4], case .text(let policy) = row[5],
                case .integer(let created) = row[6]
            else { return nil }
            return HookOutboxEntry(
                id: id, runID: run, event: event, argv: Self.decode(argv), timeoutMilliseconds: timeout, failurePolicy: policy,
                createdAtMilliseconds: created)
        }
    }

    /// Forgets the hooks delivered before `cutoff` (ms since the epoch): the outbox keeps only
    /// what may still be looked into.
    public func forgetDeliveredHooks(before cutoff: Int64) throws(StateError) {
        try db.query("DELETE FROM hook_outbox WHERE delivered_at_ms < ?", [.integer(cutoff)])
    }

    static func encode(_ argv: [String]) -> String {
        // Encoding strings cannot fail.
        (try? JSONEncoder().encode(argv)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
    }

    static func decode(_ argv: String) -> [String] {
        (try? JSONDecoder().decode([String].self, from: Data(argv.utf8))) ?? []
    }
}

import Foundation
import JobrunCore
import JobrunTestSupport
import Testing
@testable import JobrunState

/// The completion hooks' outbox: due hooks come back oldest first until delivered; delivered
/// ones are forgotten after a week; a version 1 store gains the outbox's columns, its entries
/// kept.
@Suite struct HookOutboxTests {
    static func entry(_ run: String, argv: [String] = ["notify", "a b", "\"q\""], policy: String = "fail") -> HookOutboxEntry {
        HookOutboxEntry(
            id: 0, runID: run, event: "{\"v\":1,\"run\":\"\(run)\"}", argv: argv, timeoutMilliseconds: 1_500, failurePolicy: policy,
            createdAtMilliseconds: 1_000)
    }

    @Test func dueHooksComeBackOldestFirstUntilDelivered() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try StateStore(root: try dir.makeDirectory("mirror"))
        let first = try store.addHook(Self.entry("r1"))
        let second = try store.addHook(Self.entry("r2", argv: ["sh", "-c", "echo ü; exit 3"], policy: "warn"))
        #expect(second > first)
        var due = try store.undeliveredHooks()
        #expect(due.map(\.id) == [first, second])
        var expected = Self.entry("r1")
        expected.id = first
        #expect(due.first == expected)
        #expect(due.last?.argv == ["sh", "-c", "echo ü; exit 3"] && due.last?.failurePolicy == "warn")

        try store.markHookDelivered(id: first, atMilliseconds: 10_000)
        due = try store.undeliveredHooks()
        #expect(due.map(\.id) == [second])
        try store.forgetDeliveredHooks(before: 10_000)
        #expect(try store.db.integer("SELECT count(*) FROM hook_outbox") == 2, "delivered at the cutoff: kept")
        try store.forgetDeliveredHooks(before: 10_001)
        #expect(try store.db.integer("SELECT count(*) FROM hook_outbox") == 1)
        #expect(try store.undeliveredHooks().map(\.id) == [second], "a due hook is never forgotten")
    }

    /// A store of schema 1 (whose outbox had no program) is migrated: its entries stay, with an
    /// empty program list, which the runner reports instead of running anything.
    @Test func aVersionOneStoreGainsTheColumns() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let root = try dir.makeDirectory("mirror")
        _ = try dir.makeDirectory("mirror/.jobrun")
        do {
            let raw = try SQLiteDatabase(path: StateStore.path(forRoot: root))
            try raw.execute(StateSchema.migrations[0])
            try raw.execute("PRAGMA user_version = 1")
            try raw.execute("INSERT INTO hook_outbox (run_id, event, created_at_ms) VALUES ('old', '{}', 5)")
        }
        let store = try StateStore(root: root)
        #expect(try store.schemaVersion() == StateSchema.currentVersion)
        #expect(
            try store.undeliveredHooks() == [
                HookOutboxEntry(id: 1, runID: "old", event: "{}", argv: [], timeoutMilliseconds: 60_000, failurePolicy: "warn", createdAtMilliseconds: 5)
            ])
    }

    /// Through the stores of a command: a root without a store has no due hooks, and asking
    /// does not create one.
    @Test func askingARootWithoutAStoreCreatesNone() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let root = try dir.makeDirectory("mirror")
        let states = MirrorStates(roots: [root], access: .create) { Issue.record("\($0)") }
        #expect(states.undeliveredHooks(root: root, now: 0).isEmpty)
        #expect(!dir.exists("mirror/.jobrun"))
        let id = try #require(states.addHook(Self.entry("r"), root: root))
        #expect(states.undeliveredHooks(root: root, now: 0).map(\.id) == [id])
        states.markHookDelivered(id: id, root: root, atMilliseconds: 1)
        #expect(states.undeliveredHooks(root: root, now: 0).isEmpty)
    }
}

import JobrunCore
import JobrunTestSupport
import Testing
@testable import JobrunState

@Suite struct StateStoreDeferralTests {
    /// `max_deferral` counts from the first deferral: a later one keeps that time and takes the
    /// new causes; a run forgets it, and the next deferral counts anew.
    @Test func theFirstDeferralIsKeptUntilTheResourceRuns() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try StateStore(root: dir.path)
        try store.recordDeferred([("a", "metered"), ("b", "window")], atMilliseconds: 1_000)
        try store.recordDeferred([("a", "metered,busy")], atMilliseconds: 5_000)
        var found = try store.deferredResources()
        #expect(found["a"] == StateStore.DeferredResource(resource: "a", firstDeferredAtMilliseconds: 1_000, reason: "metered,busy"))
        #expect(found["b"]?.firstDeferredAtMilliseconds == 1_000)
        try store.forgetDeferred(["a"])
        try store.recordDeferred([("a", "metered")], atMilliseconds: 9_000)
        found = try store.deferredResources()
        #expect(found["a"]?.firstDeferredAtMilliseconds == 9_000)
        // Across the stores of a command's roots, by resource.
        let other = try TemporaryDirectory()
        defer { other.remove() }
        try StateStore(root: other.path).recordDeferred([("c", "busy")], atMilliseconds: 7)
        let states = MirrorStates(roots: [dir.path, other.path], access: .existing) { _ in }
        #expect(states.firstDeferrals() == ["a": 9_000, "b": 1_000, "c": 7])
    }
}

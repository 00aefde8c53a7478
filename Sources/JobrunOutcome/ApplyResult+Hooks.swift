extension ApplyResult {
    /// Hooks whose failure fails the run (``HookEnd/failsRun``).
    public var failedHookCount: Int { hooks.count { $0.failsRun } }

    /// `; 1 hook failed` after the summary line's counts (before the clause of slices without a
    /// digest), when a hook failed the run.
    var hookClause: String {
        let n = failedHookCount
        return n == 0 ? "" : "; \(n) hook\(n == 1 ? "" : "s") failed"
    }
}

/// What runs when a resource ends (`hooks:` in `defaults` or a resource): a program per trigger,
/// given as its argument vector (never through a shell), with a time limit and what its failure
/// means. docs/policy.md, "Hooks".
public struct HookSettings: Hashable, Sendable {
    /// The program and its arguments, per trigger that has a hook. A program path with a slash
    /// is already resolved against the manifest's folder; a bare name is looked up on `PATH`
    /// when the hook runs.
    public var commands: [HookTrigger: [String]] = [:]
    public var failurePolicy: HookFailurePolicy = .warn
    /// How long a hook may run before its process group gets SIGTERM (and SIGKILL after a grace
    /// period).
    public var timeout: Duration = Self.defaultTimeout

    public static let defaultTimeout: Duration = .seconds(60)

    public init() {}
}

/// When a resource's hook runs: the keys of `hooks:`. A new trigger is one more case (and the
/// event that fires it).
public enum HookTrigger: String, CaseIterable, Sendable, Hashable {
    /// Every slice of the resource is verified and in place, durably.
    case onComplete = "on_complete"
    /// The resource failed: a slice failed, its folder could not be synced, or a dependency
    /// did not complete.
    case onFailure = "on_failure"
    /// The network policy held the resource's work back (before it started, or when its
    /// conditions turned bad while it ran), or a resource it depends on was held back.
    case onDeferred = "on_deferred"
}

/// What a hook that fails (exits non-zero, is killed, times out, cannot start) does to its run.
public enum HookFailurePolicy: String, CaseIterable, Sendable, Hashable {
    /// A warning: the run's outcome is its slices'.
    case warn
    /// The run fails (exit 1), and the hook is a failed test case in its resource's JUnit suite.
    case fail
}

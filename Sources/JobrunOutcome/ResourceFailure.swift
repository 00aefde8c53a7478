/// Why a resource did not complete.
public enum ResourceFailure: Sendable, Hashable {
    /// `count` of `total` slices failed.
    case slicesFailed(count: Int, total: Int)
    /// The run stopped (for `reason`) before `count` of its `total` slices finished.
    case unfinished(count: Int, total: Int, reason: StopReason?)
    /// Its slices are in place but the output folder could not be made durable.
    case syncFailed(message: String)
}

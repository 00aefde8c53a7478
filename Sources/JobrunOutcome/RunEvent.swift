import JobrunCore
public import JobrunManifest
public import JobrunPlan

/// What happened during a run, in the order it happened. Every output of a run — the human log,
/// the progress display, the event stream, the reports — consumes these (``RunObserver``).
public enum RunEvent: Sendable {
    /// The command began; always the first event.
    case runStarted(RunStart)
    /// A resource's catalog was read before planning: fetched, found not modified, read as kept,
    /// or refused. One per catalog, after `runStarted` and before `planned`.
    case catalogRead(CatalogReport)
    /// The plan is made: what the run will do.
    case planned(PlanCounts)
    /// Another run holds an output root; this one waits for it up to `timeout`.
    case lockWaited(root: String, holder: String?, timeout: Duration)
    /// A resource's dependencies are complete: its slices may start.
    case resourceStarted(id: String)
    /// Every slice of the resource is verified and in place, durably.
    case resourceCompleted(id: String, counts: ApplyResult.Counts)
    case resourceFailed(id: String, counts: ApplyResult.Counts, cause: ResourceFailure)
    /// Not started: a dependency did not complete.
    case resourceSkipped(id: String, reason: String)
    /// The network policy holds the resource's work back: its slices not started are deferred
    /// (those in flight when its conditions turned bad finished).
    case resourceDeferred(id: String, deferral: Deferral)
    /// A warning: the resource runs although these conditions would defer it, because it has
    /// been deferred for its `max_deferral` already.
    case deferralOverridden(id: String, causes: [Deferral.Cause])
    /// A slice the run worked on reached its end: fetched, resumed, failed or skipped.
    case sliceSettled(SettledSlice)
    /// Every file renamed into `root` so far is on disk: its file system was synced. Not in the
    /// event stream; what the mirror state records waits for it.
    case synced(root: String)
    /// A slice's attempt failed and it will try again after `delay`.
    case sliceRetrying(SliceRef, failure: AttemptFailure, attempt: Int, delay: Duration)
    /// An origin's circuit breaker changed state (``OriginEvent``).
    case origin(String, OriginEvent)
    /// Every origin with work to do failed to connect: the run pauses, probing them, for up to
    /// `wait` (until `--offline-wait` or the deadline ends it).
    case networkOffline(origins: [OfflineOrigin], wait: Duration)
    /// An origin answered again after the run had been offline for `after`: work resumes.
    case networkOnline(origin: String, after: Duration)
    /// The run's counters, while transfers run (at most as often as an observer asks).
    case progress(RunProgress)
    /// The run stops starting slices and cancels those in flight.
    case stopRequested(StopReason)
    /// A hook started: a resource's, the run's end, or one due in an earlier run.
    case hookStarted(HookRef)
    /// A hook ended: how, and the end of its output.
    case hookEnded(HookEnd)
    /// What an origin carried over the run, once transfers are over (before `runEnded`).
    case originUsage(OriginUsageReport)
    /// The run's prune ended (`apply --prune`, `prune: true`): what it moved to the trash, or why nothing.
    case pruned(PruneReport)
    /// A resource published atomically was switched in, left for the next run, or failed to be.
    case published(PublishReport)
    /// The command ends; always the last event.
    case runEnded(RunEnd)
}

/// An attempt's start, as far as the run's machine goes: the slice's resource timeout, whether it
/// is a new attempt, and whether a partial file may be there to resume.
extension RunMachine {
    /// Job `j`'s next attempt (or its redirect's next request) is about to start at `now`; its
    /// first start is recorded. The instant by which it must end (its resource's timeout after
    /// its first start), and whether this is its first start; `nil` when the timeout has passed.
    mutating func attemptDeadline(_ j: SliceID, now: Instant) -> (deadline: Instant, isFirstStart: Bool)? {
        let isFirstStart = book.firstStart(j) == nil
        if isFirstStart { book.firstStarted(j, at: now) }
        let timeout = plan.entries[book.jobs[j].resource].resource.settings.timeouts.resource
        guard let deadline = AttemptReview.attemptDeadline(firstStart: book.firstStart(j) ?? now, resourceTimeout: timeout, now: now) else { return nil }
        return (deadline, isFirstStart)
    }

    /// Job `j`'s request goes out (its folder is open): a new attempt, unless it continues one at
    /// a redirect's target. Whether a partial file may be there to resume: the plan was made by this process moments ago from one listing per
    /// folder, so a first attempt of a slice it classified fetch or refetch has none (a partial
    /// with matching metadata would have made it `resume`); later starts (retries, attempts given
    /// back while offline), redirect hops and `resume` slices look on disk.
    mutating func attemptStarts(_ j: SliceID, isFirstStart: Bool) -> Bool {
        let continuesRedirect = review.redirectOrigin(j) != nil
        if !continuesRedirect {
            book.attemptBegan(j)
            review.forgetRedirect(j)
        }
        let planned = plan.entries[book.jobs[j].resource].decisions[book.jobs[j].slice].action
        return continuesRedirect || !isFirstStart || planned == .resume
    }

    /// Whether the run's `--deadline` has come at `now` while it goes on: it stops then.
    func deadlinePassed(now: @autoclosure () -> Instant) -> Bool {
        guard let deadline, !isStopping else { return false }
        return now() >= deadline
    }
}

import JobrunCore
import JobrunOutcome

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
    /// a redirect's target. Whether a partial file may be there to resume: the plan was made by
    /// this process moments ago from one listing per folder, so a first attempt of a slice it classified fetch or refetch has none (a partial
    /// with matching metadata would have made it `resume`); later starts (retries, attempts given
    /// back while offline), redirect hops and `resume` slices look on disk, and so do slices to
    /// `revalidate`, whose folders the plan did not list (a file in place is not looked for a
    /// partial beside it): an interrupted revalidation's partial file is resumed as any other.
    mutating func attemptStarts(_ j: SliceID, isFirstStart: Bool) -> Bool {
        let continuesRedirect = review.redirectOrigin(j) != nil
        if !continuesRedirect {
            book.attemptBegan(j)
            review.forgetRedirect(j)
        }
        let planned = plan.entries[book.jobs[j].resource].decisions[book.jobs[j].slice].action
        return continuesRedirect || !isFirstStart || planned == .resume || planned == .revalidate
    }

    /// Job `j`'s attempt failed with `failure`: retried or not (``AttemptReview/retry(_:after:attempts:policy:resourceTimeout:firstStart:now:random:isStopping:originFailed:)``).
    /// A retry waits, delayed; a 429 or 503 cools down the origin that answered (a redirect's
    /// target when the attempt followed one) until then; the retry starts again at the slice's
    /// own URL. No retry at an origin given up on (the slice's own, or the redirect's target).
    /// A slice with several URLs moves to the next one first (``OriginChoice``): at once while
    /// one is left untried this round, else after the backoff; its attempts are the larger of
    /// `retries.attempts` and its count of URLs, so each is tried at least once.
    mutating func attemptFailed(
        _ j: SliceID, _ failure: AttemptFailure, now: @autoclosure () -> Instant, random: @autoclosure () -> Double
    )
        -> AttemptReview.Retry
    {
        let settings = plan.entries[book.jobs[j].resource].resource.settings
        let answered = origin(j)
        var failure = failure
        var policy = settings.retries
        var originFailed = !health.breakers.isEmpty && (health.isFailed(ownOrigin(j)) || health.isFailed(answered))
        let (attempts, firstStart) = (Int(book.jobs[j].attempts), book.firstStart(j))
        let count = urlCount(j)
        var next: Int?
        if count > 1 {
            policy.attempts = max(policy.attempts, count)
            let (usable, alive) = urlHealth(j)
            switch choice.failed(j, failure, usable: usable, alive: alive) {
            case .stays: break
            case .exhausted: return .fail
            case .failover(let k):
                let now = now()
                guard attempts < policy.attempts, !isStopping, firstStart.map({ now < $0 + settings.timeouts.resource }) ?? true else { return .fail }
                if failure.coolsDownHost {
                    // The origin that refused rests as it would have for this slice's retry.
                    let rest = failure.retryAfter ?? policy.backoff.delay(afterAttempt: attempts, random: random())
                    scheduler.coolDown(answered, until: now + rest)
                }
                moveChoice(j, to: k)
                requeue(j)
                return .retry(at: now, delay: .zero, coolsDownOrigin: failure.coolsDownHost)
            case .nextRound(let k):
                // Every URL left was tried this round, one at least for a while only: the round
                // starts again after the backoff.
                failure.isTransient = true
                originFailed = false
                next = k
            }
        }
        let retry = review.retry(
            j, after: failure, attempts: attempts, policy: policy, resourceTimeout: settings.timeouts.resource, firstStart: firstStart,
            now: now(), random: random(), isStopping: isStopping, originFailed: originFailed)
        guard case .retry(let until, _, let coolsDownOrigin) = retry else { return retry }
        if coolsDownOrigin { scheduler.coolDown(answered, until: until) }
        if let next { moveChoice(j, to: next) }
        delay(j, until: until)
        return retry
    }

    /// Job `j`'s next attempt goes to its URL `k`: what the last origin's responses said binds
    /// no other.
    mutating func moveChoice(_ j: SliceID, to k: Int) {
        guard choice.current(j) != k else { return }
        choice.move(j, to: k)
        review.movedOrigin(j)
    }

    /// Whether job `j` starts again from byte 0 now, without a wait (a resume that cannot
    /// stand): not when the run is stopping or its own origin may not be sent a request at
    /// `now`; when it does, it is queued at its own origin.
    mutating func restartsFromZero(_ j: SliceID, now: @autoclosure () -> Instant) -> Bool {
        guard !isStopping, health.mayStart(at: ownOrigin(j), now: now()) else { return false }
        requeue(j)
        return true
    }

    /// Job `j` follows a redirect to `url` (at `origin`, when the caller has it) with `headers`:
    /// its attempt goes on there, and waits for a slot at the target like any request there (its
    /// limit, cooldown and gates).
    mutating func followRedirect(_ j: SliceID, to url: String, origin: String? = nil, headers: [HeaderField]) {
        review.follow(j, to: url, origin: origin, headers: headers)
        book.ready(j)
        enqueue(j)
    }

    /// Whether the run's `--deadline` has come at `now` while it goes on: it stops then.
    func deadlinePassed(now: @autoclosure () -> Instant) -> Bool {
        guard let deadline, !isStopping else { return false }
        return now() >= deadline
    }
}

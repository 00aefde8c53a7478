import Testing
@testable import JobrunRun

/// The slice book as a machine part: transitions in, states and bookkeeping out, at made-up
/// instants.
@Suite struct SliceBookTests {
    static let t0 = ContinuousClock.now
    static func at(_ seconds: Double) -> ContinuousClock.Instant { t0 + .milliseconds(Int64(seconds * 1000)) }

    /// Two resources: `a` with three slices (the second up to date), `b` with one.
    static func book() -> SliceBook {
        var book = SliceBook(epoch: t0)
        book.addResource(0, slices: 3) { $0 == 1 }
        book.addResource(1, slices: 1) { _ in false }
        return book
    }

    @Test func jobsAreNumberedInPlanOrder() {
        var book = Self.book()
        #expect(book.jobsOfResource == [0..<3, 3..<4])
        #expect(book.firstStart(0) == nil)
        book.firstStarted(0, at: Self.at(2.5))
        #expect(book.firstStart(0) == Self.at(2.5) && book.firstStart(2) == nil)
        #expect(book.jobs.map(\.resource) == [0, 0, 0, 1] && book.jobs.map(\.slice) == [0, 1, 2, 0])
        #expect((0..<4).map(book.isDone) == [false, true, false, false])
    }

    /// A retry is counted at its origin while it waits; a gate's hold is not; each is ready again
    /// when its time comes, and one that ended meanwhile is forgotten.
    @Test func delayedJobsComeDueAndLeaveTheirOrigin() {
        var book = Self.book()
        book.delayed(0, until: Self.at(2), retryAt: "http://a")
        book.delayed(2, until: Self.at(1), retryAt: "http://a")
        book.delayed(3, until: Self.at(1), retryAt: nil)
        #expect(book.retryingAt == ["http://a": 2] && book.delayedCount == 3)
        #expect(book.nextDelayEnd() == Self.at(1))
        let early = book.dueJobs(at: Self.at(0.5))
        #expect(early.isEmpty)
        let due = book.dueJobs(at: Self.at(1))
        #expect(due.sorted() == [2, 3])
        #expect(book.retryingAt == ["http://a": 1] && book.isWaitingToStart(2) && !book.isDelayed(2))
        let first = book.done(0)
        let second = book.done(0)
        #expect(first && !second, "a delayed job that ends is done once")
        #expect(book.retryingAt.isEmpty && book.delayedCount == 0)
        let late = book.dueJobs(at: Self.at(5))
        #expect(late.isEmpty && book.delayedJobs.isEmpty)
    }

    /// Delayed again before its time, a retry moves: it is counted once, at its latest origin.
    @Test func aJobDelayedAgainIsCountedOnce() {
        var book = Self.book()
        book.delayed(0, until: Self.at(1), retryAt: "http://a")
        book.delayed(0, until: Self.at(3), retryAt: "http://b")
        #expect(book.retryingAt == ["http://b": 1])
        book.ready(0)
        #expect(book.retryingAt.isEmpty && book.isWaitingToStart(0))
    }

    /// A resource is settled once each slice is done or committing; the scan goes on where it
    /// stopped.
    @Test func aResourceIsSettledWhenEverySliceIsDoneOrCommitting() {
        var book = Self.book()
        var settled: [Bool] = [book.allSettled(resource: 0)]
        book.done(0)
        settled.append(book.allSettled(resource: 0))
        book.ready(2)
        settled.append(book.allSettled(resource: 0))
        book.done(2)
        settled.append(book.allSettled(resource: 0))
        settled.append(book.allSettled(resource: 1))
        #expect(settled == [false, false, false, true, false])
    }
}

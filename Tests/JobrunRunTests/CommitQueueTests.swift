import Testing
@testable import JobrunRun

/// The commit queue and the body backlog as machine parts, at made-up instants.
@Suite struct CommitQueueTests {
    static let t0 = ContinuousClock.now
    static func at(_ seconds: Double) -> ContinuousClock.Instant { t0 + .milliseconds(Int64(seconds * 1000)) }

    /// A batch goes when its oldest slice has waited long enough, when forced, or once full.
    @Test func aBatchIsDueByAgeByForceOrWhenFull() {
        var queue = CommitQueue()
        let none = queue.takeBatch(now: Self.at(0), force: true)
        #expect(none == nil && queue.isIdle)
        let fullAfter = [queue.add(7, at: Self.at(0)), queue.add(3, at: Self.at(0.5))]
        #expect(fullAfter == [false, false])
        #expect(queue.nextDue == Self.at(1))
        let early = queue.takeBatch(now: Self.at(0.9), force: false)
        #expect(early == nil)
        let due = queue.takeBatch(now: Self.at(1), force: false)
        #expect(due == [7, 3])
        #expect(!queue.isIdle && queue.nextDue == nil && queue.pending.isEmpty)
        queue.batchReturned()
        #expect(queue.isIdle)

        _ = queue.add(1, at: Self.at(2))
        let forced = queue.takeBatch(now: Self.at(2), force: true)
        #expect(forced == [1])
        queue.batchReturned()
        var full = false
        for j in 0..<CommitQueue.batchSize { full = queue.add(SliceID(j), at: Self.at(3)) }
        #expect(full)
    }

    @Test func rootsAreUnsyncedFromRenameToSync() {
        var queue = CommitQueue()
        queue.renamed(into: "a")
        queue.renamed(into: "b")
        queue.renamed(into: "a")
        queue.synced("a")
        #expect(queue.renamedSinceSync == ["b"])
    }

    /// Past its bounds (bodies with the disk worker, or waiting on the driver's thread, or their
    /// bytes together) nothing new starts.
    @Test func theBacklogHoldsStartsBackPastItsBounds() {
        var backlog = BodyBacklog()
        for _ in 0..<BodyBacklog.mostWaiting { backlog.waits(bytes: 0) }
        #expect(backlog.admitsStarts)
        backlog.waits(bytes: 0)
        #expect(!backlog.admitsStarts && backlog.waiting == BodyBacklog.mostWaiting + 1)
        for _ in 0...BodyBacklog.mostWaiting { backlog.taken(bytes: 0) }
        #expect(backlog.admitsStarts && backlog.waiting == 0)
        backlog.handed(bytes: BodyBacklog.mostBytes - 10)
        backlog.waits(bytes: 10)
        #expect(backlog.admitsStarts)
        backlog.waits(bytes: 1)
        #expect(!backlog.admitsStarts, "the bytes waiting and those with the disk worker count together")
        backlog.taken(bytes: 1)
        backlog.taken(bytes: 10)
        backlog.handed(bytes: 20)
        #expect(!backlog.admitsStarts)
        backlog.returned(bytes: 20)
        #expect(backlog.admitsStarts && backlog.storing == 1 && backlog.waitingBytes == 0)
        for _ in 0..<BodyBacklog.mostStoring { backlog.handed(bytes: 0) }
        #expect(!backlog.admitsStarts)
    }
}

import Dispatch
import JobrunCore
import JobrunFetch
import Synchronization
import JobrunOutcome
import JobrunSystem

/// A thread that finishes memory bodies (see ``BodySink``) for the driver: it hashes
/// each one, compares the digests with the slice's, and writes a body that matches to its
/// partial file (``BodySink/persist()``); and it performs the driver's batched commits
/// (``CommitBatch``: a sync, then the renames into place). Results go back to the driver
/// as events, in the order the work was handed over.
///
/// Why a thread of its own: with thousands of small slices, creating, writing and renaming
/// their files is much of the run's CPU time. On the driver it delayed everything else
/// that thread does (taking completions, starting the next slices); here it runs beside it.
final class DiskWorker: Sendable {
    struct Work: Sendable {
        let job: SliceID
        /// Owned by this thread from `submit` until the result is posted.
        let sink: BodySink
        let expected: [Digest]
        /// The transfer's HTTP version, which the slice's outcome tells.
        let httpVersion: String?
    }

    /// What happened to one body.
    enum Outcome: Sendable {
        /// Verified and in its partial file (closed); these are its digests.
        case stored([Digest])
        /// A digest differs (a memory body was not written): every declared digest and the
        /// body's digest for each algorithm.
        case mismatch(expected: [Digest], actual: [Digest])
        /// Hashing it (reading a file body back) or writing it failed.
        case writeFailed(WriteFailure)
    }

    /// What the thread hands back, in the order the work came.
    enum Report: Sendable {
        case body(Work, Outcome)
        case committed(CommitBatch, CommitBatch.Result)
    }

    private enum Task {
        case body(Work)
        case commit(CommitBatch)
    }

    /// State shared with the thread.
    private final class Shared: Sendable {
        /// The work submitted; the thread waits for it after each batch it takes.
        let inbox = Mailbox<Task>(consumerWaits: true)
        let hasWork = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
    }

    private let shared = Shared()

    /// `deliver` runs on this thread with the reports of each batch of work, in the order submitted.
    init(deliver: @escaping @Sendable ([Report]) -> Void) throws(EngineError) {
        let shared = self.shared
        let failure = DetachedThread.start(name: "jobrun-store", background: true) {
            let pool = DigestPool()
            while true {
                shared.hasWork.wait()
                let (batch, stop) = shared.inbox.take(thenWaits: true)
                var reports: [Report] = []
                for task in batch {
                    switch task {
                    case .body(let work):
                        reports.append(.body(work, Self.check(work.sink, expected: work.expected, pool: pool)))
                    case .commit(let commit):
                        // The bodies checked so far need not wait for the commit's sync.
                        if !reports.isEmpty { deliver(reports) }
                        reports = [.committed(commit, commit.perform())]
                    }
                }
                if !reports.isEmpty { deliver(reports) }
                if stop { break }
            }
            shared.finished.signal()
        }
        if let failure {
            shared.inbox.close()
            throw EngineError("cannot start the disk worker's thread: \(systemErrorText(failure))")
        }
    }

    /// Hands a memory body over, to be started at the latest at the next ``start()``; the caller
    /// does not touch `work.sink` until its outcome.
    func submit(_ work: Work) {
        let posted = shared.inbox.post(.body(work), claimingWake: false)
        assert(posted != .refused, "a body submitted after the disk worker's shutdown")
    }

    /// Hands a commit over, to be started at the latest at the next ``start()``; the caller does
    /// not touch its files until its result.
    func submit(_ batch: CommitBatch) {
        let posted = shared.inbox.post(.commit(batch), claimingWake: false)
        assert(posted != .refused, "a commit submitted after the disk worker's shutdown")
    }

    /// Wakes the thread for the work submitted: the driver calls it before it sleeps, so
    /// that the work of a turn of its loop costs the thread one wakeup (each one would take the
    /// driver's core from it), not one a body.
    func start() {
        if shared.inbox.claimWake() { shared.hasWork.signal() }
    }

    /// Finishes what was submitted, then stops the thread; returns when it has.
    func shutdown() {
        guard shared.inbox.close() else { return }
        shared.hasWork.signal()
        shared.finished.wait()
    }

    /// Checks a complete body against `expected` and, when it verifies, puts it in its partial
    /// file: what the disk worker does with each memory body, and the driver with file bodies
    /// (and with every body once the disk has been full). The sink is closed (a memory
    /// body's buffer back in the pool) whatever happens.
    static func check(_ sink: BodySink, expected: [Digest], pool: DigestPool) -> Outcome {
        defer { sink.close() }
        let digests: [Digest]
        switch sink.digests(pool: pool) {
        case .success(let d): digests = d
        case .failure(let failure): return .writeFailed(failure)
        }
        if zip(expected, digests).contains(where: { $0.0 != $0.1 }) {
            return .mismatch(expected: expected, actual: digests)
        }
        if let failure = sink.persist() { return .writeFailed(failure) }
        return .stored(digests)
    }
}

import JobrunCore
import JobrunOutcome
import JobrunPlan
import JobrunFiles

/// A full disk, and the partial files of attempts that end without a commit.
extension RunDriver {
    /// A write, read-back or sync of the slice's own file failed: the slice fails (the partial
    /// file stays for a later resume); a second full disk stops the run from starting more.
    mutating func failWrite(_ j: SliceID, _ failure: WriteFailure) {
        if failure.isDiskFull { machine.phase.diskFilled() }
        fail(j, AttemptFailure(kind: failure.sliceErrorKind, message: failure.message, isTransient: false))
        if machine.phase.startsNothing { stopForFullDisk() }
    }

    /// Repeated ENOSPC: nothing new starts; what has not started fails with the reason.
    /// `dispatch()` calls this again for slices that become ready later (a retry, or the
    /// dependents of a resource that completes after the disk filled up).
    mutating func stopForFullDisk() {
        guard !machine.isStopping else { return }
        // Failing slices can finish resources and so make their dependents ready: until none is.
        while machine.book.ids.contains(where: machine.book.isWaitingToStart) {
            for j in machine.book.ids where machine.book.isWaitingToStart(j) {
                fail(j, AttemptFailure(kind: .diskFull, message: "not started: the disk is full", isTransient: false), announce: false)
            }
            _ = machine.scheduler.removeAll()
            for r in plan.entries.indices { finishResourceIfDone(r) }
        }
    }

    /// Where every attempt that does not commit ends: the sink is closed, and the partial
    /// file stays only when the one rule `plan` and `apply` share can resume it (readable
    /// metadata of this slice, and a validator or a declared digest); anything else is removed,
    /// so no working file is left that nothing would continue.
    /// - Returns: what became of the slice's partial file; `nil` when there is none.
    @discardableResult
    mutating func endAttempt(_ j: SliceID, sink: BodySink) -> PartialFate? {
        sink.close()
        return endAttempt(j, file: sink.file)
    }

    /// The identity a partial file is judged by when an attempt ends: the attempt's, unless the
    /// file's metadata names another of the slice's URLs (an attempt that failed at one origin
    /// before it wrote a byte leaves what another origin left, for a later attempt there).
    func keeperIdentity(_ j: SliceID, of file: PartialFile) -> String {
        guard machine.hasSeveralURLs, machine.urlCount(j) > 1, let found = PartialDownload.find(in: file.directoryFD, for: file.fileName),
            found.metadata.identity != file.identity
        else { return file.identity }
        let left = found.metadata.identity
        return (0..<machine.urlCount(j)).contains { machine.address(j, at: $0).identity == left } ? left : file.identity
    }

    /// The end of an attempt whose `file` is closed (``endAttempt(_:sink:)``).
    @discardableResult
    mutating func endAttempt(_ j: SliceID, file: PartialFile) -> PartialFate? {
        let slice = plan.entries[machine.book.jobs[j].resource].resource.slices[machine.book.jobs[j].slice]
        switch PartialDownload.examine(
            in: file.directoryFD, for: file.fileName, identity: keeperIdentity(j, of: file), expectedSize: slice.size, hasDigest: !slice.digests.isEmpty)
        {
        case .absent:
            return nil
        case .resumable:
            return .kept
        case .unresumable(let obstacle):
            file.discard()
            machine.book.partialDiscarded(j, .unresumable(obstacle))
            return .discarded(.unresumable(obstacle))
        }
    }
}

import JobrunCore
import JobrunManifest
import JobrunPlan
import JobrunFiles
import JobrunOutcome
import JobrunSystem

/// Durable commits without an fsync per file: verified partial files wait in a batch; a flush
/// hands the batch to the disk worker's thread (``CommitBatch``), which syncs the file system once
/// (their data is on disk), then renames each into place. The resource's completion syncs once
/// more (the renames are on disk) before it is reported. A crash at any point leaves every final
/// path holding a verified file or nothing.
extension RunDriver {
    /// Queues a verified slice for the next flush; `now` flushes at once. `writer` is closed: from
    /// the flush on it is the disk worker's thread's until the commit's result.
    mutating func queueCommit(_ j: SliceID, writer: SliceWriter, digests: [Digest], now flushNow: Bool = false) {
        let now = ContinuousClock.now
        writer.verified = (digests, now)
        machine.book.committing(j, writer: writer)
        let isFull = machine.commits.add(j, at: now)
        // A resource whose last slice this is completes now rather than after the timer.
        if flushNow || isFull || machine.book.allSettled(resource: machine.book.jobs[j].resource) { flushCommitsIfDue(force: true) }
    }

    mutating func flushCommitsIfDue(force: Bool) {
        guard !machine.commits.pending.isEmpty, let jobs = machine.commits.takeBatch(now: ContinuousClock.now, force: force) else { return }
        var batch = CommitBatch()
        for j in jobs {
            guard case .committing(let writer) = machine.book.jobs[j].state else { continue }
            let root = plan.entries[machine.book.jobs[j].resource].resource.outputRoot
            // The writer's folder was opened by the root's directory, so its file system is
            // among the root's.
            batch.add(job: j, writer: writer, root: root, fileSystems: directories[root]?.fileSystems ?? FileSystemSet(writer.directoryFD))
        }
        disk.submit(batch)
    }

    /// The disk worker's thread performed `batch`: its slices are settled, and the resources they
    /// complete are finished.
    mutating func finishCommit(_ batch: CommitBatch, _ result: CommitBatch.Result) {
        machine.commits.batchReturned()
        // The renames settled before this batch preceded its syncs.
        for root in result.synced { noteSynced(root) }
        var touched = Set<Int>()
        for (file, fileResult) in zip(batch.files, result.files) {
            let j = file.job
            guard case .committing(let writer) = machine.book.jobs[j].state, writer === file.writer, let (digests, verifiedAt) = writer.verified else {
                continue
            }
            let resource = plan.entries[machine.book.jobs[j].resource].resource
            touched.insert(machine.book.jobs[j].resource)
            let renamed: FileIdentity?
            switch fileResult {
            case .notSynced(let error):
                endAttempt(j, writer: writer)
                fail(
                    j,
                    AttemptFailure(
                        kind: error == ENOSPC ? .diskFull : .io, message: "cannot sync '\(resource.outputRoot)': \(systemErrorText(error))", isTransient: false)
                )
                continue
            case .renameFailed(let failure):
                endAttempt(j, writer: writer)
                fail(j, AttemptFailure(kind: failure.isUnsafePath ? .unsafePath : .io, message: failure.message, isTransient: false))
                continue
            case .notTheVerifiedFile:
                fail(
                    j,
                    AttemptFailure(
                        kind: .io, message: "'\(writer.displayPath)' was not committed: its partial file is no longer the file that was verified",
                        isTransient: false))
                continue
            case .renamed(let identity):
                renamed = identity
            }
            machine.commits.renamed(into: resource.outputRoot)
            let reported = Self.outcomeDigests(digests, for: resource.slices[machine.book.jobs[j].slice])
            // The plan found the file on disk wrong: this fetch repaired it.
            let decision = plan.entries[machine.book.jobs[j].resource].decisions[machine.book.jobs[j].slice]
            let isRepair = decision.action == .refetch && !machine.book.jobs[j].didResume
            var outcome = SliceOutcome(
                status: machine.book.jobs[j].didResume ? .resumed : isRepair ? .repaired : .fetched, bytesTransferred: machine.book.jobs[j].bytesTransferred,
                size: writer.written, attempts: Int(machine.book.jobs[j].attempts), digests: reported.verified, computedDigests: reported.computed,
                duration: machine.book.firstStart(j).map { verifiedAt - $0 } ?? .zero, displayURL: displayURL(j),
                httpVersion: writer.httpVersion)
            outcome.hadUndeclaredLength = !writer.hasDelimitedBody
            if isRepair { outcome.repairReason = decision.reason ?? "another file was in its place" }
            // The mirror state records the file once the rename is durable, if it is then still
            // the file as renamed, change time included: a later change (one that puts the size
            // and modification time back, too) sets another change time, except within the
            // rename's own time step.
            settle(j, outcome, file: renamed, identity: writer.identity)
        }
        for r in touched.sorted() { finishResourceIfDone(r) }
    }

    /// A 416 to a resume of a partial file that already has the declared size: hash it whole,
    /// and commit it when every digest matches.
    mutating func commitCompletePartial(_ j: SliceID, writer: SliceWriter) {
        let resource = plan.entries[machine.book.jobs[j].resource].resource
        let slice = resource.slices[machine.book.jobs[j].slice]
        let fd = openat(writer.directoryFD, writer.partName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        var digests: [Digest] = []
        var ok = fd >= 0
        var computedAll = false
        if fd >= 0 {
            writer.adoptVerifiedFile(fd)
            // No digests when the file shrank while it was read (or OpenSSL failed).
            if let mapped = try? MappedFile(fileDescriptor: fd, path: writer.displayPath),
                let computed = try? mapped.digests(Self.hashedAlgorithms(for: slice))
            {
                digests = computed
                computedAll = true
                ok = slice.digests.isEmpty || computed == slice.digests
            } else {
                ok = false
            }
            close(fd)
        }
        if ok {
            machine.book.resumed(j)
            queueCommit(j, writer: writer, digests: digests, now: true)
        } else {
            discardPartial(writer)
            var failure = AttemptFailure(
                kind: .checksumMismatch,
                message: computedAll
                    ? "the complete partial file: " + Digest.mismatchDescription(expected: slice.digests, actual: digests)
                    : "the complete partial file could not be read whole",
                isTransient: true)
            failure.actualDigests = digests
            retryOrFail(j, failure)
        }
    }
}

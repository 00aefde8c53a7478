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
    /// Queues a verified slice for the next flush; `now` flushes at once. From the flush on, its
    /// file is the disk worker's thread's until the commit's result.
    mutating func queueCommit(_ j: SliceID, _ body: VerifiedBody, now flushNow: Bool = false) {
        machine.book.committing(j, body)
        let isFull = machine.commits.add(j, at: body.verifiedAt)
        // A resource whose last slice this is completes now rather than after the timer.
        if flushNow || isFull || machine.book.allSettled(resource: machine.book.jobs[j].resource) { flushCommitsIfDue(force: true) }
    }

    mutating func flushCommitsIfDue(force: Bool) {
        guard !machine.commits.pending.isEmpty, let jobs = machine.commits.takeBatch(now: ContinuousClock.now, force: force) else { return }
        var batch = CommitBatch()
        for j in jobs {
            guard case .committing(let body) = machine.book.jobs[j].state else { continue }
            let root = plan.entries[machine.book.jobs[j].resource].resource.outputRoot
            // The file's folder was opened by the root's directory, so its file system is
            // among the root's.
            batch.add(job: j, body: body, root: root, fileSystems: directories[root]?.fileSystems ?? FileSystemSet(body.file.directoryFD))
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
            guard case .committing(let body) = machine.book.jobs[j].state, body === file.body else { continue }
            let resource = plan.entries[machine.book.jobs[j].resource].resource
            touched.insert(machine.book.jobs[j].resource)
            let renamed: FileIdentity?
            switch fileResult {
            case .unchanged(let kept):
                settleSameBytes(j, body, kept: kept)
                continue
            case .notSynced(let error):
                endAttempt(j, file: body.file)
                fail(
                    j,
                    AttemptFailure(
                        kind: error == ENOSPC ? .diskFull : .io, message: "cannot sync '\(resource.outputRoot)': \(systemErrorText(error))", isTransient: false)
                )
                continue
            case .renameFailed(let failure):
                endAttempt(j, file: body.file)
                fail(j, AttemptFailure(kind: failure.isUnsafePath ? .unsafePath : .io, message: failure.message, isTransient: false))
                continue
            case .notTheVerifiedFile:
                fail(
                    j,
                    AttemptFailure(
                        kind: .io, message: "'\(body.file.displayPath)' was not committed: its partial file is no longer the file that was verified",
                        isTransient: false))
                continue
            case .renamed(let identity):
                renamed = identity
            }
            machine.commits.renamed(into: resource.outputRoot)
            let reported = Self.outcomeDigests(body.digests, for: resource.slices[machine.book.jobs[j].slice])
            // The plan found the file on disk wrong: this fetch repaired it.
            let decision = plan.entries[machine.book.jobs[j].resource].decisions[machine.book.jobs[j].slice]
            let isRepair = decision.action == .refetch && !machine.book.jobs[j].didResume
            var outcome = SliceOutcome(
                status: machine.book.jobs[j].didResume ? .resumed : isRepair ? .repaired : .fetched,
                bytesTransferred: machine.book.jobs[j].bytesTransferred.value,
                size: body.size.value, attempts: Int(machine.book.jobs[j].attempts), digests: reported.verified, computedDigests: reported.computed,
                duration: machine.book.firstStart(j).map { body.verifiedAt - $0 } ?? .zero, displayURL: displayURL(j),
                httpVersion: body.httpVersion)
            outcome.hadUndeclaredLength = body.hadUndeclaredLength
            if isRepair { outcome.repairReason = decision.reason ?? "another file was in its place" }
            if body.replacesOnlyIfDifferent { outcome.revalidation = .replaced }
            // The mirror state records the file once the rename is durable, if it is then still
            // the file as renamed, change time included: a later change (one that puts the size
            // and modification time back, too) sets another change time, except within the
            // rename's own time step.
            settle(j, outcome, file: renamed, identity: body.file.identity, validators: recorded(body.validators, of: j))
        }
        for r in touched.sorted() { finishResourceIfDone(r) }
    }

    /// A 416 to a resume of a partial file that already has the declared size: hash it whole,
    /// and commit it when every digest matches.
    mutating func commitCompletePartial(_ j: SliceID, sink: BodySink, httpVersion: String?) {
        let resource = plan.entries[machine.book.jobs[j].resource].resource
        let slice = resource.slices[machine.book.jobs[j].slice]
        let fd = openat(sink.file.directoryFD, sink.file.partName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        var digests: [Digest] = []
        var ok = fd >= 0
        var computedAll = false
        if fd >= 0 {
            sink.adoptVerifiedFile(fd)
            // No digests when the file shrank while it was read (or OpenSSL failed).
            if let mapped = try? MappedFile(fileDescriptor: fd, path: sink.file.displayPath),
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
            let size = sink.file.closedIdentity.map { ByteCount($0.size) }
            queueCommit(
                j,
                VerifiedBody(
                    sink: sink, digests: digests, verifiedAt: ContinuousClock.now, httpVersion: httpVersion, size: size, revalidates: isRevalidation(j)
                ),
                now: true)
        } else {
            sink.file.discard()
            var failure = AttemptFailure(
                kind: .checksumMismatch,
                message: computedAll
                    ? "the complete partial file: " + Digest.mismatchDescription(expected: slice.digests, actual: digests)
                    : "the complete partial file could not be read whole",
                isTransient: true)
            failure.actualDigests = digests
            retryOrFail(j, failure, isOriginsAnswer: false)
        }
    }
}

import JobrunCore
import JobrunFetch
import JobrunManifest
import JobrunPlan
import JobrunFiles
import JobrunOutcome

extension RunDriver {
    /// Opens (creating as needed) the folder a slice's file lives in.
    mutating func folder(for j: SliceID) -> (dir: OutputDirectory, fd: Int32, name: String, display: String)? {
        let resource = plan.entries[machine.book.jobs[j].resource].resource
        let relative = resource.relativePath(of: resource.slices[machine.book.jobs[j].slice])
        let root: OutputDirectory
        if let existing = directories[resource.outputRoot] {
            root = existing
        } else {
            do throws(WriteFailure) {
                root = try OutputDirectory(rootPath: resource.outputRoot)
                directories[resource.outputRoot] = root
            } catch {
                fail(j, AttemptFailure(kind: error.isDiskFull ? .diskFull : .io, message: error.message, isTransient: false))
                return nil
            }
        }
        let (parent, name) = SlashPath.split(relative)
        do throws(WriteFailure) {
            let fd = try root.folder(String(parent))
            return (root, fd, String(name), root.display(relative))
        } catch {
            fail(j, AttemptFailure(kind: error.sliceErrorKind, message: error.message, isTransient: false))
            return nil
        }
    }

    /// Starts the next attempt of job `j`, or continues its attempt at a redirect's target.
    mutating func startAttempt(_ j: SliceID) {
        let resource = plan.entries[machine.book.jobs[j].resource].resource
        let slice = resource.slices[machine.book.jobs[j].slice]
        let settings = resource.settings
        let now = ContinuousClock.now
        guard let (deadline, isFirstStart) = machine.attemptDeadline(j, now: now) else {
            fail(
                j,
                outcomes[machine.book.jobs[j].resource][machine.book.jobs[j].slice].failure
                    ?? AttemptFailure(
                        kind: .timeout,
                        message: "the resource timeout (\(DurationParser.format(milliseconds: settings.timeouts.resource.wholeMilliseconds))) passed",
                        isTransient: false))
            return
        }
        guard let place = folder(for: j) else { return }
        let mayHavePartial = machine.attemptStarts(j, isFirstStart: isFirstStart)
        let own = machine.address(j)
        let identity = own.identity
        let size = slice.size.map { ByteCount($0) }
        let keepsMetadata = (slice.size ?? 0) >= PartialDownload.resumableSize
        let resume =
            mayHavePartial
            ? resumeOffset(dirFD: place.fd, name: place.name, identity: identity, expectedSize: slice.size, hasDigest: !slice.digests.isEmpty) : nil
        let file = PartialFile(directoryFD: place.fd, fileName: place.name, displayPath: place.display, identity: identity)
        let next = machine.nextRequest(j, own: own)
        let origin = machine.origin(j)
        // A revalidation asks conditionally with the file's validators, of the origin that sent
        // them only; a resume of an earlier revalidation's partial file continues a new version.
        let conditional = resume == nil ? conditionalValidators(j, at: origin) : OriginValidators()
        var headers = next.headers.map { ($0.name, $0.value) }
        headers.append(contentsOf: conditional.conditionalHeaders)
        var request = TransferRequest(
            url: next.url, headers: headers,
            rangeStart: resume?.offset.value, ifRange: resume?.validator?.value,
            connectTimeout: settings.timeouts.connect, idleTimeout: settings.timeouts.request,
            totalTimeout: deadline - now, caFile: options.caFile ?? settings.caFile, allowsFileScheme: options.allowsFileURLs)
        // A catalog's resource: where its catalog led, only public addresses or those 'allow' names.
        if let catalog = resource.catalog { request.addressRule = catalog.addressRule(for: next.url, origins: resource.origins) }
        // Large slices: a bigger receive buffer means fewer reads and loop turns per byte (the
        // curl tool uses 100 KiB; measured in docs/performance.md). Small slices (unsized ones by
        // their resource's mean so far) keep libcurl's 16 KiB and the pool of reused easy handles.
        let planned = machine.review.plannedSize(resource: machine.book.jobs[j].resource, declared: size)
        // An unsized slice before any of its resource's bodies has arrived is taken to be large.
        request.receiveBufferSize = TransferPlacement.receiveBuffer(forSize: planned ?? TransferPlacement.largeSliceSize)
        let applyRun = self.applyRun
        var engine = 0
        if TransferPlacement.takesTurns(
            size: planned, overTLS: request.usesTLS, multiplexed: request.usesTLS && machine.scheduler.streams(at: origin) > 1,
            slotsPerHost: settings.concurrency.slotsPerHost)
        {
            engine = machine.scheduler.engine(fewestAt: origin, among: engines.count)
        }
        machine.book.runs(j, onEngine: engine)
        let inFlight = machine.scheduler.started(at: origin, engine: engine, now: ContinuousClock.now)
        let sink = BodySink(
            file: file,
            check: ResponseCheck(
                resumeOffset: resume?.offset ?? 0, resumeValidator: resume?.validator, expectedSize: size,
                cap: size ?? settings.maxSize, learned: machine.review.learned[j] ?? resume?.learned, isConditional: !conditional.isEmpty),
            algorithms: Self.hashedAlgorithms(for: slice), keepsMetadata: keepsMetadata,
            sent: RequestSent(at: ContinuousClock.now, inFlight: inFlight),
            progress: { [applyRun] sink, written in
                applyRun.post(.bodyProgress(job: j, sink: sink, written: written))
            },
            buffers: bodyBuffers, keepsValidators: slice.digests.isEmpty)
        let id = engines[engine].start(request, sink: sink) { result in
            applyRun.post(.transferDone(job: j, sink: sink, result: result))
        }
        machine.book.running(j, transfer: id, sink: sink)
    }

    /// A partial file this slice may continue: its size, its validator (none when the slice's
    /// digest is to decide), and what its metadata says of the file, when the metadata matches.
    /// Anything else (``PartialDownload/Found/obstacle(identity:expectedSize:hasDigest:)``) means
    /// starting from zero.
    func resumeOffset(
        dirFD: Int32, name: String, identity: String, expectedSize: Int64?, hasDigest: Bool
    ) -> (offset: ByteCount, validator: Representation.Validator?, learned: Representation)? {
        guard let partial = PartialDownload.find(in: dirFD, for: name), partial.continues(identity: identity, expectedSize: expectedSize, hasDigest: hasDigest)
        else { return nil }
        let validator = partial.validator(for: identity)
        return (ByteCount(partial.size), validator, Representation(validator: validator, total: partial.totalSize(for: identity).map { ByteCount($0) }))
    }

    // MARK: Completions

    /// Takes every posted event. A finished transfer frees its slot at once. Its outcome is
    /// handled before new slices start when that can change what starts (a failure, a 429's
    /// cooldown, a redirect); a body to verify and store waits until the freed slots have their
    /// next slices, and then is checked one at a time (a memory body goes to the ``DiskWorker``;
    /// a file body is hashed to its end here), taking newly posted events the same way in
    /// between: the engine thread never waits for new work while the disk's work is done. Bodies
    /// waiting here or with the disk worker are bounded (``BodyBacklog``). Once the
    /// disk has been full, every outcome is handled here before anything new starts, so a second
    /// full disk stops the run before it starts more.
    mutating func handleEvents() {
        var bodies: [(job: SliceID, sink: BodySink, result: TransferResult, report: AttemptReport)] = []
        var next = 0
        while true {
            var freedSlots = false
            for event in applyRun.takeEvents() {
                switch event {
                case .transferDone(let j, let sink, let result):
                    guard case .running(_, let current) = machine.book.jobs[j].state, current === sink else { continue }
                    progress.bytesReceived += result.bodyBytes
                    let report = AttemptReport(sink: sink, result: result)
                    machine.transferEnded(
                        j, report, sent: sink.sent, bytes: ByteCount(result.bodyBytes), duration: result.duration,
                        now: ContinuousClock.now)
                    freedSlots = true
                    if machine.bodyWaitsForStarts(hasBody: sink.hasBodyToCheck(result)) {
                        bodies.append((j, sink, result, report))
                        machine.backlog.waits(bytes: sink.isInMemory ? sink.written : .zero)
                    } else {
                        complete(j, sink: sink, result: result, report: report)
                    }
                case .bodyProgress(let j, let sink, let written):
                    guard case .running(_, let current) = machine.book.jobs[j].state, current === sink else { continue }
                    sink.hash(upTo: written, scratch: digestPool.scratch)
                case .stored(.body(let work, let outcome)):
                    guard case .storing(let current) = machine.book.jobs[work.job].state, current === work.sink else { continue }
                    machine.backlog.returned(bytes: work.sink.written)
                    freedSlots = true
                    finishChecked(work.job, sink: work.sink, outcome: outcome, httpVersion: work.httpVersion)
                case .stored(.committed(let batch, let result)):
                    finishCommit(batch, result)
                }
            }
            // Bounded: a body waiting here holds its memory, so past the backlog's bounds (count, or
            // of their bytes) the next slices wait until this thread has caught up.
            if freedSlots && !machine.isStopping && machine.backlog.admitsStarts { dispatch() }
            guard next < bodies.count else {
                assert(machine.backlog.waiting == 0, "bodies counted as waiting that were not taken")
                // Slots the backlog held back (and those `complete` freed) are used now.
                if !bodies.isEmpty && !machine.isStopping { dispatch() }
                return
            }
            let b = bodies[next]
            next += 1
            machine.backlog.taken(bytes: b.sink.isInMemory ? b.sink.written : .zero)
            complete(b.job, sink: b.sink, result: b.result, report: b.report)
        }
    }

    mutating func complete(_ j: SliceID, sink: BodySink, result: TransferResult, report: AttemptReport) {
        let resource = plan.entries[machine.book.jobs[j].resource].resource
        let slice = resource.slices[machine.book.jobs[j].slice]
        // Whatever happens below, the attempt ends on the way out (a memory body dropped, the
        // partial file closed, and kept only when it can be resumed) unless its body went on, or
        // a stop's cut ended it already (``settleCut``).
        var handedOver = false
        defer { if !handedOver { endAttempt(j, sink: sink) } }
        machine.book.received(j, bytes: ByteCount(result.bodyBytes))
        if result.failure == .cancelled {
            handedOver = true
            settleCut(j, sink: sink)
            return
        }
        // While the network is gone, a failure to reach the origin costs the slice no attempt.
        switch machine.attemptReached(j, report, startedAt: sink.sent.at, now: ContinuousClock.now) {
        case .counts: break
        case .cameOnline(let origin, let after): events.emit(.networkOnline(origin: origin, after: after))
        case .givenBack: return
        case .wentOffline(let origins, let wait):
            events.emit(.networkOffline(origins: origins, wait: wait))
            return
        case .cut:
            handedOver = true
            settleCut(j, sink: sink)
            return
        }
        noteOriginHealth(j, report)
        let wallClock = options.wallClock
        let judgement = machine.review.judge(
            j, resource: machine.book.jobs[j].resource, report, expectedSize: slice.size.map { ByteCount($0) }, backoff: resource.settings.retries.backoff,
            wallClock: wallClock())
        switch judgement {
        case .writeFailed(let failure):
            // No final file was touched; the partial file stays if it can be resumed.
            failWrite(j, failure)
        case .redirect(let location):
            let own = machine.address(j)
            switch machine.review.redirect(j, location: location, ownURL: own.url, headers: machine.ownHeaders(j)) {
            case .follow(let url, let headers):
                // A run that is stopping sends no further request: the attempt ends cut short.
                guard !machine.isStopping else {
                    handedOver = true
                    settleCut(j, sink: sink)
                    return
                }
                // The hop's origin is held to its breaker like any other request.
                let hop = (try? ParsedURL.parse(url).get())?.origin ?? url
                guard admitsHop(j, to: hop) else { return }
                machine.followRedirect(j, to: url, origin: hop, headers: headers)
            case .refuse(let why):
                // For good at this URL: a slice with another goes there.
                retryOrFail(j, AttemptFailure(kind: .redirect, message: why, isTransient: false))
            }
        case .notModified(let validators):
            settleNotModified(j, validators: validators, httpVersion: result.httpVersion)
        case .completePartial:
            // The partial file already holds every byte: verify it instead of failing. Closed
            // first: a commit hands the sink to the disk worker's thread.
            handedOver = true
            sink.close()
            commitCompletePartial(j, sink: sink, httpVersion: result.httpVersion)
        case .failed(let failure, let discardsPartial, let restartsFromZero):
            if discardsPartial { sink.file.discard() }
            if restartsFromZero, restartFromZero(j, after: failure) { return }
            retryOrFail(j, failure)
        case .body:
            if machine.checksBodyAside(isInMemory: sink.isInMemory) {
                // Hashed, compared and written beside this thread; its report finishes it.
                handedOver = true
                machine.book.storing(j, sink: sink)
                machine.backlog.handed(bytes: sink.written)
                disk.submit(DiskWorker.Work(job: j, sink: sink, expected: slice.digests, httpVersion: result.httpVersion))
                return
            }
            handedOver = true  // `check` closes it
            finishChecked(j, sink: sink, outcome: DiskWorker.check(sink, expected: slice.digests, pool: digestPool), httpVersion: result.httpVersion)
        }
    }

    /// The end of a body's check (``DiskWorker/check(_:expected:pool:)``, on the disk worker's thread or
    /// this one): committed, retried from zero, or failed.
    mutating func finishChecked(_ j: SliceID, sink: BodySink, outcome: DiskWorker.Outcome, httpVersion: String?) {
        switch outcome {
        case .stored(let digests):
            let revalidates = isRevalidation(j)
            if revalidates, let refused = Self.refusesToReplace(sink: sink, declaredSize: slice(of: j).size) {
                sink.file.discard()
                retryOrFail(j, refused)
                return
            }
            if sink.startOffset > 0 { machine.book.resumed(j) }
            queueCommit(j, VerifiedBody(sink: sink, digests: digests, verifiedAt: ContinuousClock.now, httpVersion: httpVersion, revalidates: revalidates))
        case .mismatch(let expected, let actual):
            sink.file.discard()
            let (failure, restarts) = AttemptReview.mismatch(expected: expected, actual: actual, isUnvalidatedResume: sink.isUnvalidatedResume)
            if restarts {
                // Only the digest vouched for the partial file's bytes, and it did not: they may
                // be of another version, so the slice gets one fetch from byte 0.
                machine.book.partialDiscarded(j, .failedDigest)
                if restartFromZero(j, after: failure) { return }
            }
            retryOrFail(j, failure, isOriginsAnswer: !restarts)
        case .writeFailed(let failure):
            endAttempt(j, sink: sink)
            failWrite(j, failure)
        }
    }

    /// A resume that cannot stand (refused at its head, or unvalidated and failing its digest):
    /// the slice starts again from byte 0 as soon as its origin has a slot, without Range (so
    /// this cannot repeat), at its own URL and origin. The restart is an attempt, told as a
    /// retry without a wait. `false` when the run is stopping or the origin may not start now.
    mutating func restartFromZero(_ j: SliceID, after failure: AttemptFailure) -> Bool {
        guard machine.restartsFromZero(j, now: ContinuousClock.now) else { return false }
        noteOriginFailure(j, failure, isOriginsAnswer: false)
        noteRetry(j, after: failure, delay: .zero)
        return true
    }

    /// Counts job `j`'s failed attempt at its origin; an origin its wrong answers quarantine is
    /// told, and its waiting slices go to their next URL
    /// (``RunMachine/attemptFailedAtOrigin(_:_:isOriginsAnswer:)``).
    mutating func noteOriginFailure(_ j: SliceID, _ failure: AttemptFailure, isOriginsAnswer: Bool) {
        guard let origin = machine.attemptFailedAtOrigin(j, failure, isOriginsAnswer: isOriginsAnswer) else { return }
        events.emit(.origin(origin, .quarantined(wrongAnswers: OriginQuarantine.threshold, last: "\(failure.kind.rawValue): \(failure.message)")))
        machine.moveWaiting(off: origin)
    }

    /// Retries a transient failure after a backoff (or the server's Retry-After) while attempts
    /// and the resource timeout last; otherwise the slice fails.
    mutating func retryOrFail(_ j: SliceID, _ failure: AttemptFailure, isOriginsAnswer: Bool = true) {
        noteOriginFailure(j, failure, isOriginsAnswer: isOriginsAnswer)
        // Where the attempt went: the machine may move the slice to its next URL.
        let (failedAt, shown) = (displayURL(j), shownURL(j))
        let random = options.random
        guard case .retry(_, let delay, _) = machine.attemptFailed(j, failure, now: ContinuousClock.now, random: random()) else {
            fail(j, failure)
            return
        }
        noteRetry(j, after: failure, delay: delay, at: (failedAt, shown))
    }

    /// Job `j` is tried again in `delay` after `failure`: until then its outcome is that failure
    /// (a later resource timeout reports it), and the event tells the retry.
    /// The failed attempt went to `at` (its outcome's display URL, and as shown), the slice's
    /// current URL unless given.
    mutating func noteRetry(_ j: SliceID, after failure: AttemptFailure, delay: Duration, at url: (display: String?, shown: String)? = nil) {
        let (r, s) = (machine.book.jobs[j].resource, machine.book.jobs[j].slice)
        let attempts = Int(machine.book.jobs[j].attempts)
        let (display, shown) = url ?? (displayURL(j), shownURL(j))
        outcomes[r][s] = SliceOutcome(
            status: .failed, bytesTransferred: machine.book.jobs[j].bytesTransferred.value, attempts: attempts, failure: failure, displayURL: display)
        let resource = plan.entries[r].resource
        events.emit(
            .sliceRetrying(SliceRef(resource: resource.id, path: resource.slices[s].path, url: shown), failure: failure, attempt: attempts, delay: delay))
    }

    /// `announce`: false for slices failed in bulk, whose reason one other event tells.
    mutating func fail(_ j: SliceID, _ failure: AttemptFailure, announce: Bool = true) {
        settle(
            j,
            SliceOutcome(
                status: .failed, bytesTransferred: machine.book.jobs[j].bytesTransferred.value, attempts: Int(machine.book.jobs[j].attempts), failure: failure,
                duration: machine.book.firstStart(j).map { ContinuousClock.now - $0 } ?? .zero, displayURL: displayURL(j)), bulk: !announce)
        // The resource's verified slices need not wait for the commit timer once nothing else
        // of it is under way.
        if !machine.commits.pending.isEmpty, machine.book.allSettled(resource: machine.book.jobs[j].resource) { flushCommitsIfDue(force: true) }
        finishResourceIfDone(machine.book.jobs[j].resource)
    }
}

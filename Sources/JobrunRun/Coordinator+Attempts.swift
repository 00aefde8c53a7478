import JobrunCore
import JobrunFetch
import JobrunManifest
import JobrunPlan
import JobrunVerify
import JobrunOutcome

extension Coordinator {
    /// Slices of at least `largeSliceSize` bytes get a `largeReceiveBuffer`-byte libcurl receive
    /// buffer (such a transfer gets an easy handle of its own; see `TransferRequest`).
    static let largeSliceSize: Int64 = 1 << 20
    static let largeReceiveBuffer = 512 << 10

    static func receiveBuffer(forSize size: Int64?) -> Int? {
        guard let size, size >= largeSliceSize else { return nil }
        return largeReceiveBuffer
    }

    /// Plain-HTTP slices of at least `spreadSliceSize` bytes take turns over the engines.
    static let spreadSliceSize: Int64 = 64 << 10
    /// TLS slices of at least `spreadTLSSliceSize` bytes take turns over the engines.
    static let spreadTLSSliceSize: Int64 = 24 << 10

    /// Whether a transfer takes its turn over all the engines (`true`) or stays on engine 0, the
    /// one the coordinator drives itself. Where the engine thread's work grows with the bytes —
    /// copying bodies of 64 KiB and more, decrypting TLS bodies — spreading puts that work on
    /// every core; for a smaller body, handing its completion over from another thread (and, over
    /// TLS, a second connection) costs more than it saves. The lines (64 KiB over plain HTTP,
    /// 24 KiB over TLS) are where spreading starts to pay on two cores; the measurements are in
    /// docs/performance.md, "Where transfers run, and why".
    ///
    /// An unsized slice goes by the mean of its resource's unsized bodies so far
    /// (``BodySizeEstimate``), and spreads before the first has arrived: a large body kept on
    /// one engine would be received and hashed on one core.
    static func takesTurns(size: Int64?, overTLS: Bool) -> Bool {
        guard let size else { return true }
        return size >= (overTLS ? spreadTLSSliceSize : spreadSliceSize)
    }

    /// The size a transfer of job `j` is planned by: its slice's, or the estimate for its
    /// resource's unsized slices.
    func plannedSize(_ j: Int, declared: Int64?) -> Int64? {
        declared ?? unsizedBodies[book.jobs[j].resource]?.mean
    }

    /// Opens (creating as needed) the folder a slice's file lives in.
    mutating func folder(for j: Int) -> (dir: OutputDirectory, fd: Int32, name: String, display: String)? {
        let resource = plan.entries[book.jobs[j].resource].resource
        let relative = resource.relativePath(of: resource.slices[book.jobs[j].slice])
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
    mutating func startAttempt(_ j: Int) {
        let isRedirectHop = Self.continuesRedirect(j, hops: hops)
        let resource = plan.entries[book.jobs[j].resource].resource
        let slice = resource.slices[book.jobs[j].slice]
        let settings = resource.settings
        let now = ContinuousClock.now
        let isFirstStart = book.firstStart(j) == nil
        if isFirstStart { book.firstStarted(j, at: now) }
        let deadline = (book.firstStart(j) ?? now) + settings.timeouts.resource
        guard now < deadline else {
            fail(
                j,
                outcomes[book.jobs[j].resource][book.jobs[j].slice].failure
                    ?? AttemptFailure(
                        kind: .timeout,
                        message: "the resource timeout (\(DurationParser.format(milliseconds: settings.timeouts.resource.wholeMilliseconds))) passed",
                        isTransient: false))
            return
        }
        guard let place = folder(for: j) else { return }
        if !isRedirectHop {
            book.jobs[j].attempts += 1
            if !hops.isEmpty { hops[j] = nil }
        }
        let own = address(j)
        let identity = own.identity
        // The plan was made by this process moments ago from one listing per folder: a first
        // attempt of a slice it classified fetch/refetch has no resumable partial (a partial
        // with matching metadata would have made it `resume`), so the per-slice lookup is
        // skipped there. Later starts (retries, attempts given back while offline), redirect
        // hops and `resume` slices look on disk as before.
        let mayHavePartial = isRedirectHop || !isFirstStart || plan.entries[book.jobs[j].resource].decisions[book.jobs[j].slice].action == .resume
        let resume =
            mayHavePartial
            ? resumeOffset(dirFD: place.fd, name: place.name, identity: identity, expectedSize: slice.size, hasDigest: !slice.digests.isEmpty) : nil
        let token = nextToken
        nextToken += 1
        let writer = SliceWriter(
            directoryFD: place.fd, fileName: place.name, displayPath: place.display, identity: identity,
            expectedSize: slice.size, cap: slice.size ?? settings.maxSize.value,
            algorithms: Self.hashedAlgorithms(for: slice), resumeOffset: resume?.offset ?? 0,
            resumeValidator: resume?.validator, learned: learned[j] ?? resume?.learned,
            shouldKeepMetadata: (slice.size ?? 0) >= PartialDownload.resumableSize,
            progress: { [executor] written in
                executor.post(.bodyProgress(job: j, token: token, written: written))
            },
            buffers: bodyBuffers)
        let next = nextRequest(j, own: own)
        var request = TransferRequest(
            url: next.url, headers: next.headers.map { ($0.name, $0.value) },
            rangeStart: resume?.offset, ifRange: resume?.validator?.value,
            connectTimeout: settings.timeouts.connect, idleTimeout: settings.timeouts.request,
            totalTimeout: deadline - now, caFile: options.caFile ?? settings.caFile, allowsFileScheme: options.allowsFileURLs)
        // Large slices: a bigger receive buffer means fewer reads and loop turns per byte (the
        // curl tool uses 100 KiB; measured in docs/performance.md). Small slices (unsized ones by
        // their resource's mean so far) keep libcurl's 16 KiB and the pool of reused easy handles.
        let size = plannedSize(j, declared: slice.size)
        // An unsized slice before any of its resource's bodies has arrived is taken to be large.
        request.receiveBufferSize = Self.receiveBuffer(forSize: size ?? Self.largeSliceSize)
        let executor = self.executor
        var engine = 0
        if Self.takesTurns(size: size, overTLS: request.usesTLS) {
            engine = nextSharedEngine
            nextSharedEngine = (nextSharedEngine + 1) % engines.count
        }
        book.jobs[j].engine = UInt8(engine)
        let id = engines[engine].start(request, sink: writer) { result in
            executor.post(.transferDone(job: j, token: token, result: result))
        }
        writer.token = token
        book.running(j, transfer: id, writer: writer)
        scheduler.started(at: origin(j))
    }

    /// A partial file this slice may continue: its size, its validator (none when the slice's
    /// digest is to decide), and what its metadata says of the file, when the metadata matches.
    /// Anything else (``PartialDownload/Found/obstacle(identity:expectedSize:hasDigest:)``) means
    /// starting from zero.
    func resumeOffset(
        dirFD: Int32, name: String, identity: String, expectedSize: Int64?, hasDigest: Bool
    ) -> (offset: Int64, validator: Representation.Validator?, learned: Representation)? {
        guard let partial = PartialDownload.find(in: dirFD, for: name), partial.continues(identity: identity, expectedSize: expectedSize, hasDigest: hasDigest)
        else { return nil }
        let validator = partial.metadata.validator
        return (partial.size, validator, Representation(validator: validator, total: partial.metadata.totalSize))
    }

    // MARK: Completions

    /// Takes every posted event. A finished transfer frees its slot at once. Its outcome is
    /// handled before new slices start when that can change what starts (a failure, a 429's
    /// cooldown, a redirect); a body to verify and store waits until the freed slots have their
    /// next slices, and then is checked one at a time (a memory body goes to the ``BodyStore``;
    /// a file body is hashed to its end here), taking newly posted events the same way in
    /// between: the engine thread never waits for new work while the disk's work is done. Bodies
    /// waiting here or with the store are bounded (``BodyBacklog``). Once the
    /// disk has been full, every outcome is handled here before anything new starts, so a second
    /// full disk stops the run before it starts more.
    mutating func handleEvents() {
        var bodies: [(job: Int, writer: SliceWriter, result: TransferResult)] = []
        var next = 0
        var waitingBytes: Int64 = 0
        while true {
            var freedSlots = false
            for event in executor.takeEvents() {
                switch event {
                case .transferDone(let j, let token, let result):
                    guard case .running(_, let writer) = book.jobs[j].state, writer.token == token else { continue }
                    progress.bytesReceived += result.bodyBytes
                    scheduler.ended(at: origin(j))
                    // Under the slice's own origin, where the gate looks (a redirect's target serves it).
                    if !scheduler.gates.isEmpty { scheduler.observe(ownOrigin(j), bytes: result.bodyBytes, duration: ContinuousClock.now - writer.startedAt) }
                    freedSlots = true
                    if !phase.hasFilledDisk, writer.hasBodyToCheck(result) {
                        bodies.append((j, writer, result))
                        if writer.isInMemory { waitingBytes += writer.written }
                    } else {
                        complete(j, writer: writer, result: result)
                    }
                case .bodyProgress(let j, let token, let written):
                    guard case .running(_, let writer) = book.jobs[j].state, writer.token == token else { continue }
                    writer.hash(upTo: written, scratch: digestPool.scratch)
                case .stored(.body(let j, let writer, let outcome)):
                    guard case .storing(let current) = book.jobs[j].state, current === writer else { continue }
                    backlog.returned(bytes: writer.written)
                    freedSlots = true
                    finishChecked(j, writer: writer, outcome: outcome)
                case .stored(.committed(let batch, let result)):
                    finishCommit(batch, result)
                }
            }
            // Bounded: a body waiting here holds its memory, so past the backlog's bounds (count, or
            // of their bytes) the next slices wait until this thread has caught up.
            if freedSlots && !isStopping && backlog.admitsStarts(waiting: bodies.count - next, waitingBytes: waitingBytes) { dispatch() }
            guard next < bodies.count else {
                // Slots the backlog held back (and those `complete` freed) are used now.
                if !bodies.isEmpty && !isStopping { dispatch() }
                return
            }
            let b = bodies[next]
            next += 1
            if b.writer.isInMemory { waitingBytes -= b.writer.written }
            complete(b.job, writer: b.writer, result: b.result)
        }
    }

    mutating func complete(_ j: Int, writer: SliceWriter, result: TransferResult) {
        let resource = plan.entries[book.jobs[j].resource].resource
        let slice = resource.slices[book.jobs[j].slice]
        // Whatever happens below, the attempt ends on the way out (a memory body dropped, the
        // partial file closed, and kept only when it can be resumed) unless its body went on, or
        // a stop's cut ended it already (``settleCut``).
        var handedOver = false
        defer { if !handedOver { endAttempt(j, writer: writer) } }
        book.jobs[j].bytesTransferred += result.bodyBytes
        writer.httpVersion = result.httpVersion
        if result.failure == .cancelled {
            handedOver = true
            settleCut(j, writer: writer)
            return
        }
        // While the network is gone, a failure to reach the origin costs the slice no attempt.
        switch noteReach(j, result: result, writer: writer) {
        case .counts: break
        case .givenBack: return
        case .cut:
            handedOver = true
            settleCut(j, writer: writer)
            return
        }
        noteOriginHealth(j, result: result, writer: writer)
        if let failure = writer.writeFailure {
            // No final file was touched; the partial file stays if it can be resumed.
            failWrite(j, failure)
            return
        }
        switch writer.verdict {
        case .redirect(let location):
            let own = address(j)
            let current = nextRequest(j, own: own)
            let count = hops.isEmpty ? 0 : hops[j]?.count ?? 0
            switch RedirectPolicy.decide(location: location, current: current.url, original: own.url, hops: count, headers: current.headers) {
            case .follow(let url, let headers):
                // A run that is stopping sends no further request: the attempt ends cut short.
                guard !isStopping else {
                    handedOver = true
                    settleCut(j, writer: writer)
                    return
                }
                let hop = (try? ParsedURL.parse(url).get())?.origin ?? url
                // The hop's origin is held to its breaker like any other request.
                guard admitsHop(j, to: hop) else { return }
                hops[j] = Hop(url: url, headers: headers, count: count + 1, origin: hop)
                // The hop waits for a slot at its target like any request there: its origin's
                // limit, cooldown and gates hold it as they hold the target's own slices.
                book.ready(j)
                enqueue(j)
            case .refuse(let why):
                fail(j, AttemptFailure(kind: .redirect, message: why, isTransient: false))
            }
        case .refused(var failure):
            if failure.status == 416, writer.resumeOffset > 0 {
                if writer.resumeOffset == slice.size {
                    // The partial file already holds every byte: verify it instead of failing.
                    // Closed first: a commit hands the writer to the store's thread.
                    handedOver = true
                    writer.close()
                    commitCompletePartial(j, writer: writer)
                    return
                }
                // Otherwise the partial file cannot be known whole (no declared size to hold it
                // to, or the server's file is now shorter; a 416 names no version), and failing
                // would leave it to get the same answer in every later run: it is discarded and
                // the slice starts again from byte 0.
                failure = ResponseCheck.rangeMismatch("HTTP 416 to a resume from byte \(writer.resumeOffset): the partial file cannot be continued")
            }
            // A partial that cannot be continued is removed: a mismatched range or version, or
            // a response refused for what it is (its bytes were never the file's).
            if [.rangeMismatch, .inconsistentResponse, .tooLarge, .sizeMismatch, .contentEncoding, .transferEncoding].contains(failure.kind) {
                // What the partial file's metadata said of the file outlives it for this run.
                if learned[j] == nil, let earlier = writer.learned { learned[j] = earlier }
                discardPartial(writer)
            }
            if failure.kind == .rangeMismatch, writer.resumeOffset > 0, restartFromZero(j, after: failure) { return }
            if let value = result.retryAfter, let delay = RetryAfter.delay(value, now: options.wallClock()) {
                failure.retryAfter = resource.settings.retries.backoff.clampRetryAfter(delay)
            }
            retryOrFail(j, failure)
        case .body:
            if slice.size == nil, result.failure == nil { unsizedBodies[book.jobs[j].resource, default: BodySizeEstimate()].observe(writer.written) }
            if let seen = writer.representation, result.failure != nil || writer.written != slice.size ?? writer.declaredEnd {
                // Held against the next attempt's response (only slices that need one keep it).
                learned[j] = seen
            }
            if let transport = result.failure {
                // File mode keeps what arrived for a resume; a memory body is dropped.
                retryOrFail(j, Self.failure(from: transport))
                return
            }
            if let expected = slice.size, writer.written != expected {
                discardPartial(writer)
                retryOrFail(j, AttemptFailure(kind: .sizeMismatch, message: "received \(writer.written) bytes, expected \(expected)", isTransient: true))
                return
            }
            if let end = writer.declaredEnd, writer.written != end {
                // The body stopped short of (or ran past) the length its own response declared.
                discardPartial(writer)
                retryOrFail(
                    j, AttemptFailure(kind: .truncated, message: "received \(writer.written) bytes of the \(end) the response declared", isTransient: true))
                return
            }
            if writer.isInMemory && !phase.hasFilledDisk {
                // Hashed, compared and written beside this thread; its report finishes it.
                // Once the disk has been full, bodies are stored here, one at a time, so the
                // next full disk is known before anything else starts.
                handedOver = true
                book.storing(j, writer: writer)
                backlog.handed(bytes: writer.written)
                store.submit(BodyStore.Work(job: j, writer: writer, expected: slice.digests))
                return
            }
            handedOver = true  // `check` closes it
            finishChecked(j, writer: writer, outcome: BodyStore.check(writer, expected: slice.digests, pool: digestPool))
        case nil:
            retryOrFail(j, Self.failure(from: result.failure ?? .other(code: -1, message: "the transfer ended without a response")))
        }
    }

    /// The end of a body's check (``BodyStore/check(_:expected:pool:)``, on the store's thread or
    /// this one): committed, retried from zero, or failed.
    mutating func finishChecked(_ j: Int, writer: SliceWriter, outcome: BodyStore.Outcome) {
        switch outcome {
        case .stored(let digests):
            book.jobs[j].didResume = writer.startOffset > 0 || book.jobs[j].didResume
            queueCommit(j, writer: writer, digests: digests)
        case .mismatch(let expected, let actual):
            discardPartial(writer)
            var failure = AttemptFailure(kind: .checksumMismatch, message: Digest.mismatchDescription(expected: expected, actual: actual), isTransient: true)
            failure.actualDigests = actual
            if writer.isUnvalidatedResume {
                // Only the digest vouched for the partial file's bytes, and it did not: they may
                // be of another version, so the slice gets one fetch from byte 0.
                failure.message += "; the resume had no validator, so its partial file is discarded and the slice fetched again from byte 0"
                book.jobs[j].discardedPartial = .failedDigest
                if restartFromZero(j, after: failure) { return }
            }
            retryOrFail(j, failure)
        case .writeFailed(let failure):
            endAttempt(j, writer: writer)
            failWrite(j, failure)
        }
    }

    /// A resume that cannot stand (refused at its head, or unvalidated and failing its digest):
    /// the slice starts again from byte 0 as soon as its origin has a slot, without Range (so
    /// this cannot repeat), at its own URL and origin. The restart is an attempt, told as a
    /// retry without a wait. `false` when the run is stopping or the origin may not start now.
    mutating func restartFromZero(_ j: Int, after failure: AttemptFailure) -> Bool {
        guard !isStopping, health.mayStart(at: ownOrigin(j), now: ContinuousClock.now) else { return false }
        outcomes[book.jobs[j].resource][book.jobs[j].slice] = SliceOutcome(
            status: .failed, bytesTransferred: book.jobs[j].bytesTransferred, attempts: Int(book.jobs[j].attempts), failure: failure, displayURL: displayURL(j))
        let resource = plan.entries[book.jobs[j].resource].resource
        events.emit(
            .sliceRetrying(
                SliceRef(resource: resource.id, path: resource.slices[book.jobs[j].slice].path, url: shownURL(j)), failure: failure,
                attempt: Int(book.jobs[j].attempts), delay: .zero))
        requeue(j)
        return true
    }

    static func failure(from transport: TransferResult.Failure) -> AttemptFailure {
        switch transport {
        case .resolve(let m): AttemptFailure(kind: .resolve, message: m, isTransient: true)
        case .connect(let m): AttemptFailure(kind: .connect, message: m, isTransient: true)
        case .timeout(let m), .connectTimeout(let m): AttemptFailure(kind: .timeout, message: m, isTransient: true)
        case .tls(let m): AttemptFailure(kind: .tls, message: m, isTransient: false)
        case .network(let m): AttemptFailure(kind: .network, message: m, isTransient: true)
        case .truncated(let m): AttemptFailure(kind: .truncated, message: m, isTransient: true)
        case .protocolRefused(let m): AttemptFailure(kind: .protocolRefused, message: m, isTransient: false)
        case .abortedBySink: AttemptFailure(kind: .other, message: "aborted", isTransient: false)
        case .cancelled: AttemptFailure(kind: .interrupted, message: "interrupted", isTransient: false)
        case .other(let code, let m): AttemptFailure(kind: .other, message: "\(m) (curl error \(code))", isTransient: false)
        }
    }

    /// Retries a transient failure after a backoff (or the server's Retry-After) while attempts
    /// and the resource timeout last; otherwise the slice fails.
    mutating func retryOrFail(_ j: Int, _ failure: AttemptFailure) {
        let resource = plan.entries[book.jobs[j].resource].resource
        let settings = resource.settings
        outcomes[book.jobs[j].resource][book.jobs[j].slice] = SliceOutcome(
            status: .failed, bytesTransferred: book.jobs[j].bytesTransferred, attempts: Int(book.jobs[j].attempts), failure: failure, displayURL: displayURL(j))
        // An origin given up on gets no retry either (the slice's own, or the redirect's target).
        let originFailed = !health.breakers.isEmpty && (health.isFailed(ownOrigin(j)) || health.isFailed(origin(j)))
        guard failure.isTransient, Int(book.jobs[j].attempts) < settings.retries.attempts, !isStopping, !originFailed else {
            fail(j, failure)
            return
        }
        let delay = failure.retryAfter ?? settings.retries.backoff.delay(afterAttempt: Int(book.jobs[j].attempts), random: options.random())
        let now = ContinuousClock.now
        if let start = book.firstStart(j), now + delay >= start + settings.timeouts.resource {
            fail(j, failure)
            return
        }
        if failure.coolsDownHost {
            let until = now + delay
            scheduler.coolDown(origin(j), until: until)
        }
        // After a redirect the origin is the last hop's; the next attempt starts again at the
        // slice's own URL, so it queues and counts against that host's limit.
        resetOrigin(j)
        self.delay(j, until: now + delay)
        let slice = resource.slices[book.jobs[j].slice]
        events.emit(
            .sliceRetrying(
                SliceRef(resource: resource.id, path: slice.path, url: shownURL(j)), failure: failure, attempt: Int(book.jobs[j].attempts), delay: delay))
    }

    /// `announce`: false for slices failed in bulk, whose reason one other event tells.
    mutating func fail(_ j: Int, _ failure: AttemptFailure, announce: Bool = true) {
        settle(
            j,
            SliceOutcome(
                status: .failed, bytesTransferred: book.jobs[j].bytesTransferred, attempts: Int(book.jobs[j].attempts), failure: failure,
                duration: book.firstStart(j).map { ContinuousClock.now - $0 } ?? .zero, displayURL: displayURL(j)), bulk: !announce)
        // The resource's verified slices need not wait for the commit timer once nothing else
        // of it is under way.
        if !commits.pending.isEmpty, book.allSettled(resource: book.jobs[j].resource) { flushCommitsIfDue(force: true) }
        finishResourceIfDone(book.jobs[j].resource)
    }
}

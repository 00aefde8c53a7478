import Dispatch
public import JobrunCore
import JobrunManifest
public import JobrunPlan
public import JobrunOutcome
public import JobrunState
import Synchronization
public import JobrunSystem

/// Records in the mirror states what a run proves: the run itself (start, end, stop reason,
/// exit status, counts), and every file a fetch put in place, once its rename is durable
/// (``RunEvent/synced(root:)``), so that a store never claims a file that a crash could take
/// back. A ``RunObserver``; the database is written on a thread of its own, so the run never
/// waits for it.
public final class StateRecorder: RunObserver {
    /// A committed file waiting for its root's sync: its slice (plan entry and index), its
    /// identity just after the rename, the digests it was verified against, and when.
    struct Committed: Sendable {
        var entry: Int
        var slice: Int
        var file: FileIdentity
        var digests: [Digest]
        var atMilliseconds: Int64
        /// What the origin said identifies the version (recorded with the time as its word).
        var validators: OriginValidators
    }

    private let states: MirrorStates
    private let runID: String
    /// Plan entries by resource id, and the last one looked up (slices of a resource settle in runs).
    private let entries: [String: Int]
    private var lastEntry: (id: String, entry: Int)?
    private let plan: Plan?
    /// Committed files by output root, until the root's next sync.
    private var pending: [String: [Committed]] = [:]
    /// 304s to revalidations by output root, and files a revalidation's body proved as they are,
    /// written in batches (no file changed: no sync to wait for).
    private var confirmations: [String: [StateStore.Confirmation]] = [:]
    private var unchanged: [String: [Committed]] = [:]
    /// Confirmations (or unchanged files) a root gathers before they are written.
    static let confirmationBatch = 512
    private let worker: Worker?
    /// Resources the stores remember as deferred: only their completion is worth a write.
    private var deferred: Set<String>

    /// Records the start of the run `runID` (`command`, begun at `startedAt`, ms since the epoch)
    /// now, and the rest as it happens; without a plan (`verify`), only the run.
    public init(states: MirrorStates, plan: Plan?, runID: String, command: String, startedAt: Int64 = FileIdentity.now() / 1_000_000) {
        self.states = states
        self.runID = runID
        self.plan = plan
        var entries: [String: Int] = [:]
        for (k, entry) in (plan?.entries ?? []).enumerated() { entries[entry.resource.id] = k }
        self.entries = entries
        deferred = Set(states.firstDeferrals().keys)
        states.recordRunStart(runID: runID, command: command, atMilliseconds: startedAt)
        // Even without a store yet: `apply` creates one when it first has something to record.
        worker = Worker(states: states, plan: plan, runID: runID)
    }

    /// Returns once everything recorded so far is written (`apply` calls it before it lets go
    /// of the output roots' locks, so that the next run plans against it).
    public func waitUntilWritten() {
        worker?.waitUntilWritten()
    }

    public func observe(_ event: RunEvent) {
        guard let worker else { return }
        switch event {
        case .sliceSettled(let settled):
            guard let plan, let index = settled.index, let k = entry(of: settled.slice.resource),
                plan.entries[k].resource.slices.indices.contains(index)
            else { return }
            // By reference into the plan: a copy of the resource would retain every field, for every slice.
            let root = plan.entries[k].resource.outputRoot
            let revalidation = settled.outcome.revalidation
            if revalidation == .notModified, let confirmed = settled.confirmed {
                confirmations[root, default: []].append(
                    StateStore.Confirmation(
                        path: plan.entries[k].resource.relativePath(of: plan.entries[k].resource.slices[index]), file: confirmed,
                        validators: settled.validators, atMilliseconds: FileIdentity.now() / 1_000_000))
                if confirmations[root]?.count ?? 0 >= Self.confirmationBatch { flushConfirmations(root) }
                return
            }
            // Files a fetch put in place (recorded once their renames are durable), and those a
            // revalidation's body proved as they are (nothing renamed: recorded with the confirmations).
            let status = settled.outcome.status
            guard let file = settled.file, status == .fetched || status == .resumed || status == .repaired || revalidation == .sameBytes else { return }
            let committed = Committed(
                entry: k, slice: index, file: file, digests: settled.outcome.digests + settled.outcome.computedDigests,
                atMilliseconds: FileIdentity.now() / 1_000_000, validators: settled.validators)
            if revalidation == .sameBytes {
                unchanged[root, default: []].append(committed)
                if unchanged[root]?.count ?? 0 >= Self.confirmationBatch { flushConfirmations(root) }
            } else {
                pending[root, default: []].append(committed)
            }
        case .synced(let root):
            if let committed = pending.removeValue(forKey: root), !committed.isEmpty { worker.enqueue(.files(root: root, committed)) }
        case .resourceDeferred(let id, let deferral):
            // When it was first deferred is what `max_deferral` counts from, across runs.
            guard let plan, let k = entry(of: id) else { return }
            deferred.insert(id)
            worker.enqueue(
                .deferred(
                    root: plan.entries[k].resource.outputRoot, id: id, reason: deferral.reasons.map(\.rawValue).joined(separator: ","),
                    atMilliseconds: FileIdentity.now() / 1_000_000))
        case .resourceCompleted(let id, _):
            if let plan, let k = entry(of: id) { flushConfirmations(plan.entries[k].resource.outputRoot) }
            // It ran: a later deferral counts anew.
            guard deferred.remove(id) != nil, let plan, let k = entry(of: id) else { return }
            worker.enqueue(.ran(root: plan.entries[k].resource.outputRoot, id: id))
        case .origin(let origin, .quarantined(_, let last)):
            // Remembered in every root of the run, so that the next run of any of them starts elsewhere.
            guard let plan else { return }
            let now = FileIdentity.now() / 1_000_000
            let q = StateStore.QuarantinedOrigin(origin: origin, untilMilliseconds: now + StateStore.QuarantinedOrigin.rememberedFor, reason: last)
            for root in Set(plan.entries.map(\.resource.outputRoot)).sorted() { worker.enqueue(.quarantined(root: root, q, atMilliseconds: now)) }
        case .runEnded(let end):
            for root in Set(confirmations.keys).union(unchanged.keys).sorted() { flushConfirmations(root) }
            worker.enqueue(.end(end))
            worker.finish()
        default:
            break
        }
    }

    /// Writes `root`'s gathered confirmations and unchanged files.
    private func flushConfirmations(_ root: String) {
        if let batch = confirmations.removeValue(forKey: root), !batch.isEmpty { worker?.enqueue(.confirmed(root: root, batch)) }
        if let files = unchanged.removeValue(forKey: root), !files.isEmpty { worker?.enqueue(.files(root: root, files)) }
    }

    private func entry(of resource: String) -> Int? {
        if let last = lastEntry, last.id == resource { return last.entry }
        guard let k = entries[resource] else { return nil }
        lastEntry = (resource, k)
        return k
    }

    /// The thread that writes.
    final class Worker: Sendable {
        enum Job: Sendable {
            case files(root: String, [Committed])
            /// 304s to revalidations.
            case confirmed(root: String, [StateStore.Confirmation])
            case end(RunEnd)
            /// The network policy deferred a resource; a resource ran to its end.
            case deferred(root: String, id: String, reason: String, atMilliseconds: Int64)
            case ran(root: String, id: String)
            /// An origin was quarantined for wrong bytes.
            case quarantined(root: String, StateStore.QuarantinedOrigin, atMilliseconds: Int64)
            /// Signalled when every job before it is written.
            case barrier(DispatchSemaphore)
        }

        /// A file whose change time is this recent waits for it to settle before it is recorded
        /// (``FileIdentity/isSettled(seen:)``); one that would need longer is recorded as it is,
        /// and read once more by the next check.
        static let longestWait: Int64 = 100_000_000

        /// The jobs; the thread waits for them after each batch it takes.
        private let jobs = Mailbox<Job>(consumerWaits: true)
        private let hasWork = DispatchSemaphore(value: 0)
        private let done = DispatchSemaphore(value: 0)
        private let states: MirrorStates
        private let plan: Plan?
        private let runID: String

        init?(states: MirrorStates, plan: Plan?, runID: String) {
            self.states = states
            self.plan = plan
            self.runID = runID
            guard DetachedThread.start(name: "jobrun-state", background: true, { [self] in loop() }) == nil else { return nil }
        }

        func enqueue(_ job: Job) {
            let posted = jobs.post(job)
            assert(posted != .refused, "a job enqueued after the recorder finished")
            if posted == .wake { hasWork.signal() }
        }

        func waitUntilWritten() {
            let written = DispatchSemaphore(value: 0)
            enqueue(.barrier(written))
            written.wait()
        }

        /// Returns once every job is written.
        func finish() {
            jobs.close()
            hasWork.signal()
            done.wait()
        }

        private func loop() {
            while true {
                hasWork.wait()
                let (taken, isFinished) = jobs.take(thenWaits: true)
                for job in taken { write(job) }
                if isFinished {
                    done.signal()
                    return
                }
            }
        }

        private func write(_ job: Job) {
            switch job {
            case .files(let root, let committed):
                // A root whose store cannot be written is not worth a look at its files.
                guard let plan, states.mayRecord(root: root) else { return }
                states.record(Self.proven(committed, of: plan), root: root)
            case .confirmed(let root, let batch):
                states.confirm(batch, root: root)
            case .deferred(let root, let id, let reason, let at):
                states.recordDeferred([(id, reason)], root: root, atMilliseconds: at)
            case .ran(let root, let id):
                states.forgetDeferred([id], root: root)
            case .quarantined(let root, let q, let at):
                states.recordQuarantined(q, root: root, atMilliseconds: at)
            case .barrier(let written):
                written.signal()
            case .end(let end):
                states.recordRunEnd(
                    runID: runID, atMilliseconds: FileIdentity.now() / 1_000_000, stopReason: end.stopReason?.code,
                    exitStatus: end.exitStatus, counts: end.counts)
            }
        }

        /// Each committed file as it is now, if its identity is still the one taken just after its
        /// rename, change time included. Files renamed too recently to be settled are waited for
        /// first (at most ``longestWait``), so that one look at each finds it settled: on a file
        /// system stamped from the coarse clock, until that clock's next tick; elsewhere, the
        /// wall clock's step. A file that would need longer is recorded as it is, and read once
        /// more by the next check.
        static func proven(_ committed: [Committed], of plan: Plan) -> [ProvenSlice] {
            var folder = FolderLook()
            let paths = committed.map { item in
                let resource = plan.entries[item.entry].resource
                return resource.filePath(of: resource.slices[item.slice])
            }
            let coarse = paths.map { folder.isCoarseStamped($0) }
            waitUntilSettled(committed.indices.lazy.map { (committed[$0].file, coarse[$0]) })
            var proven: [ProvenSlice] = []
            proven.reserveCapacity(committed.count)
            for (k, item) in committed.enumerated() {
                guard let (file, look) = folder.look(at: paths[k]), file == item.file else { continue }
                let resource = plan.entries[item.entry].resource
                var slice = ProvenSlice(
                    path: resource.relativePath(of: resource.slices[item.slice]), resource: resource.id, digests: item.digests,
                    file: file, seenAtNanoseconds: look.wall, settled: file.isSettled(seen: look),
                    provenAtMilliseconds: item.atMilliseconds, fetchedAtMilliseconds: item.atMilliseconds)
                // The origin's word counts for files a `refresh:` may ask again: those without a digest.
                if resource.slices[item.slice].digests.isEmpty {
                    slice.validators = item.validators
                    slice.confirmedAtMilliseconds = item.atMilliseconds
                }
                proven.append(slice)
            }
            return proven
        }

        /// Waits until every file of `files` (its identity, and whether its folder is stamped from
        /// the coarse clock) that can settle within ``longestWait`` has. The wait is timed by the
        /// monotonic clock: the wall clock may be set back meanwhile.
        static func waitUntilSettled(_ files: some Collection<(FileIdentity, Bool)>) {
            let start = ContinuousClock.now
            let budget = Duration.nanoseconds(longestWait)
            let startWall = FileIdentity.now()
            // Only those a wait can settle: a whole-second change time takes two seconds.
            let waitFor = files.filter { file, _ in
                let (left, over) = file.settlesAt.subtractingReportingOverflow(startWall)
                return !over && left <= longestWait
            }
            while true {
                let now = LookTime.now(coarse: true)
                let wall = LookTime(wall: now.wall)
                let unsettled = waitFor.filter { file, coarse in !file.isSettled(seen: coarse ? now : wall) }
                let elapsed = ContinuousClock.now - start
                guard !unsettled.isEmpty, elapsed < budget else { return }
                // The wall clock's step is known; the coarse clock moves at its next tick, a
                // millisecond or a few away.
                let wallStep = unsettled.lazy.filter { !$0.1 }.map { $0.0.settlesAt &- now.wall }.max() ?? 0
                let pause = min(max(wallStep, unsettled.contains { $0.1 } ? 1_000_000 : 0), (budget - elapsed).wholeNanoseconds)
                var interval = timespec(tv_sec: Int(pause / 1_000_000_000), tv_nsec: Int(pause % 1_000_000_000))
                var remaining = timespec()
                while nanosleep(&interval, &remaining) != 0 && errno == EINTR { interval = remaining }
            }
        }
    }

    /// Looks at files by name in their folder, keeping the last few folders open: a run's files
    /// share few folders, and looking up one name costs the kernel a fraction of a whole path.
    struct FolderLook: ~Copyable {
        /// Open folders, the most recently opened last, with their device when their files are
        /// stamped from the coarse clock (``FileStampClock/coarseDevice(ofFolder:)``).
        private var folders: [(path: String, descriptor: Int32, coarseDevice: UInt64?)] = []
        /// Enough for the resources a run fetches at once to keep their folders open, few enough
        /// to cost nothing next to the run's own descriptors.
        static let mostOpen = 8

        /// The identity of the file at `path` (a link in its place is not followed, as
        /// `fstatat(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW)` would not), and when it was taken: with
        /// the coarse clock where its folder, and the file's own device, is stamped from it.
        mutating func look(at path: String) -> (FileIdentity, LookTime)? {
            guard let folder = opened(SlashPath.folder(of: path)) else { return nil }
            let name = SlashPath.split(path).name
            let look = LookTime.now(coarse: folder.coarseDevice != nil)
            var status = stat()
            guard name.withCString({ fstatat(folder.descriptor, $0, &status, AT_SYMLINK_NOFOLLOW) }) == 0 else { return nil }
            let file = FileIdentity(status)
            return (file, look.of(fileOn: file.device, coarseDevice: folder.coarseDevice))
        }

        /// Whether the folder of `path` is stamped from the coarse clock (its files may still be
        /// on another device: ``look(at:)`` tells).
        mutating func isCoarseStamped(_ path: String) -> Bool {
            opened(SlashPath.folder(of: path))?.coarseDevice != nil
        }

        private mutating func opened(_ path: String) -> (descriptor: Int32, coarseDevice: UInt64?)? {
            if let known = folders.last(where: { $0.path == path }) { return (known.descriptor, known.coarseDevice) }
            let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard descriptor >= 0 else { return nil }
            if folders.count == Self.mostOpen { close(folders.removeFirst().descriptor) }
            let coarseDevice = FileStampClock.coarseDevice(ofFolder: descriptor)
            folders.append((path, descriptor, coarseDevice))
            return (descriptor, coarseDevice)
        }

        deinit {
            for folder in folders { close(folder.descriptor) }
        }
    }
}

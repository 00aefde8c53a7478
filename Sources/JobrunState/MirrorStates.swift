import JobrunCore
internal import Synchronization
import JobrunSystem

/// The mirror states of one command's output roots, each opened once. A store that cannot be used
/// never blocks the mirror: it is reported once (``warn``), left alone from then on, and the
/// command hashes that root's files as it would without a store.
public final class MirrorStates: @unchecked Sendable {
    /// How a command may use the stores.
    public enum Access: Sendable {
        /// `apply`, which holds the output roots' locks: a store is created where there is none,
        /// and a damaged one is set aside (`state.sqlite.damaged`) and started anew.
        case create
        /// `plan`, `verify`: only a store that exists is used (and written to); a damaged one is
        /// left as it is.
        case existing
        /// `status`: only a store that exists, opened read-only; nothing is ever written.
        case reading
    }

    // @unchecked: `stores` and the rest below, and the stores themselves, are only touched
    // while `lock` is held.
    private let lock = Mutex(())
    private var stores: [String: StateStore] = [:]
    /// Roots whose store was opened, or found unusable: not tried again.
    private var tried = Set<String>()
    /// Roots whose store could only be read, said once.
    private var readOnlyWarned = Set<String>()
    /// The run recorded in every store, for a store opened later (an output root the run created).
    private var runStart: (runID: String, command: String, milliseconds: Int64)?
    private let access: Access
    private let warn: @Sendable (String) -> Void
    /// Every root the command works on, whether its store is in use yet or not.
    private let allRoots: [String]

    /// Opens the store of each of `roots` (as the manifests name them; repeated roots are opened
    /// once) that has one. With ``Access/create``, a root without one (or not there yet) gets it
    /// when something is first recorded there. `warn` gets one line per store that cannot be
    /// used, on whichever thread met it.
    public init(roots: some Sequence<String>, access: Access, warn: @escaping @Sendable (String) -> Void) {
        self.access = access
        self.warn = warn
        allRoots = Set(roots).sorted()
        // A store that does not exist yet is created when something is first recorded (with
        // ``Access/create``), a run's end included: a run refused before it started leaves the
        // root as it was.
        for root in Set(roots) where FileStatus.kind(atPath: StateStore.path(forRoot: root)) != nil {
            tried.insert(root)
            if let store = Self.open(root: root, access: access, warn: warn) { stores[root] = store }
        }
    }

    /// What a command goes on with when a store cannot be used.
    private static func fallback(_ access: Access) -> String {
        access == .reading ? "its files count as not proven" : "files are hashed, nothing is recorded"
    }

    /// The roots whose store is in use.
    public var roots: [String] { lock.withLock { _ in Array(stores.keys).sorted() } }

    /// What each usable store recorded, by root (a store that fails to read is dropped, or
    /// started anew with ``Access/create``).
    public func provenFiles() -> [String: [String: ProvenFile]] {
        var known: [String: [String: ProvenFile]] = [:]
        for root in roots {
            guard let files = use(root, { store throws(StateError) in try store.provenFiles() }) else { continue }
            known[root] = files
        }
        return known
    }

    /// The last `limit` runs recorded in the stores in use, newest first. A run that wrote to
    /// several roots is in each of their stores: it is listed once.
    public func lastRuns(limit: Int) -> [StateStore.Run] {
        guard limit > 0 else { return [] }
        var lists: [[StateStore.Run]] = []
        for root in roots {
            guard let runs = use(root, { store throws(StateError) in try store.lastRuns(limit: limit) }) else { continue }
            lists.append(runs)
        }
        return Self.merge(lists, limit: limit)
    }

    /// The newest `limit` of `lists`' runs, one per run id: where stores differ (a run killed
    /// before it recorded its end in every root), the one that recorded the end.
    static func merge(_ lists: [[StateStore.Run]], limit: Int) -> [StateStore.Run] {
        var byID: [String: StateStore.Run] = [:]
        for run in lists.joined() {
            if let known = byID[run.runID], known.endedAtMilliseconds != nil || run.endedAtMilliseconds == nil { continue }
            byID[run.runID] = run
        }
        let newestFirst = byID.values.sorted {
            ($0.startedAtMilliseconds, $0.runID) > ($1.startedAtMilliseconds, $1.runID)
        }
        return Array(newestFirst.prefix(max(0, limit)))
    }

    /// Whether recording for `root` now is worth its work: its store is in use and writable (or
    /// read-only and not yet said so: ``record(_:root:)`` says it), or, with ``Access/create``,
    /// not tried yet.
    public func mayRecord(root: String) -> Bool {
        guard access != .reading else { return false }
        return lock.withLock { _ in
            if let store = stores[root] { return !store.isReadOnly || !readOnlyWarned.contains(root) }
            return access == .create && !tried.contains(root)
        }
    }

    /// Records `slices` in `root`'s store, if it has one in use.
    public func record(_ slices: [ProvenSlice], root: String) {
        guard !slices.isEmpty, access != .reading else { return }
        let warn = warn
        _ = use(root) { store throws(StateError) in
            guard !store.isReadOnly else {
                if readOnlyWarned.insert(root).inserted {
                    warn("the mirror state '\(store.path)' can only be read here: what this run proved is not recorded")
                }
                return
            }
            try store.record(slices)
        }
    }

    /// Forgets `paths` in `root`'s store, if it has one in use.
    public func forget(_ paths: [String], root: String) {
        guard !paths.isEmpty, access != .reading else { return }
        _ = use(root) { store throws(StateError) in if !store.isReadOnly { try store.forget(paths: paths) } }
    }

    /// Records in every store in use that the run `runID` (`command`) started.
    public func recordRunStart(runID: String, command: String, atMilliseconds started: Int64) {
        guard access != .reading else { return }
        lock.withLock { _ in runStart = (runID, command, started) }
        for root in roots {
            _ = use(root) { store throws(StateError) in
                if !store.isReadOnly { try store.recordRunStart(runID: runID, command: command, startedAtMilliseconds: started) }
            }
        }
    }

    /// Records in every store in use how the run `runID` ended; with ``Access/create``, in every
    /// root's, created if need be: a first run that failed before recording any file is still a
    /// run that `status` must be able to show.
    public func recordRunEnd(
        runID: String, atMilliseconds ended: Int64, stopReason: String?, exitStatus: Int32, counts: [(name: String, value: Int64)]
    ) {
        guard access != .reading else { return }
        for root in access == .create ? allRoots : roots {
            _ = use(root) { store throws(StateError) in
                if !store.isReadOnly {
                    try store.recordRunEnd(runID: runID, endedAtMilliseconds: ended, stopReason: stopReason, exitStatus: exitStatus, counts: counts)
                }
            }
        }
    }

    /// Takes `store` (opened during the run) for `root`, with the run's start recorded in it, as
    /// in the stores opened before. Called with `lock` held.
    private func adopt(_ store: StateStore?, for root: String) {
        stores[root] = store
        if let store, let run = runStart {
            try? store.recordRunStart(runID: run.runID, command: run.command, startedAtMilliseconds: run.milliseconds)
        }
    }

    /// Runs `body` on `root`'s store; on a failure, reports it and stops using the store (or, for
    /// a damaged one with ``Access/create``, sets it aside and starts anew).
    func use<T>(_ root: String, _ body: (StateStore) throws(StateError) -> T) -> T? {
        lock.withLock { _ -> T? in
            if stores[root] == nil, access == .create, !tried.contains(root), FileStatus.isDirectory(atPath: root) {
                tried.insert(root)
                adopt(Self.open(root: root, access: access, warn: warn), for: root)
            }
            guard let store = stores[root] else { return nil }
            do throws(StateError) {
                return try body(store)
            } catch {
                stores[root] = nil
                if case .corrupt = error, access == .create, let fresh = Self.startAnew(root: root, after: error, warn: warn) {
                    adopt(fresh, for: root)
                } else {
                    warn(Self.unusable(error, fallback: Self.fallback(access)))
                }
                return nil
            }
        }
    }

    private static func open(root: String, access: Access, warn: @Sendable (String) -> Void) -> StateStore? {
        do {
            return try StateStore(root: root, readOnly: access == .reading)
        } catch {
            if case .corrupt = error, access == .create { return startAnew(root: root, after: error, warn: warn) }
            // Not writable here (a read-only mount, another user's folder): still good for
            // recognizing unchanged files.
            if case .failed = error, access == .existing, let store = try? StateStore(root: root, readOnly: true) { return store }
            warn(unusable(error, fallback: fallback(access)))
            return nil
        }
    }

    /// Moves a database jobrun cannot use aside, whatever it is (a damaged file, one of no known
    /// schema, a folder in its place), in place of any set aside before (its write-ahead log and
    /// shared memory go: they belong to it), and creates a new one.
    private static func startAnew(root: String, after error: StateError, warn: @Sendable (String) -> Void) -> StateStore? {
        let path = StateStore.path(forRoot: root)
        let aside = path + ".damaged"
        // rename(2) replaces a file with a file, or an empty folder with a folder, only: an older
        // one of another kind, or a folder with something in it, goes first.
        var isMoved = rename(path, aside) == 0
        if !isMoved, [EISDIR, ENOTDIR, ENOTEMPTY, EEXIST].contains(errno) {
            TreeRemoval.remove(aside)
            isMoved = rename(path, aside) == 0
        }
        guard isMoved else {
            warn(unusable(error, fallback: fallback(.create)))
            return nil
        }
        unlink(path + "-wal")
        unlink(path + "-shm")
        do {
            let store = try StateStore(root: root)
            warn("the mirror state \(error); it was moved to '\(aside)' and a new one started (files are hashed until they are proven again)")
            return store
        } catch {
            warn(unusable(error, fallback: fallback(.create)))
            return nil
        }
    }

    private static func unusable(_ error: StateError, fallback: String) -> String {
        "the mirror state \(error); going on without it (\(fallback))"
    }
}

import JobrunCore
internal import Dispatch
internal import Synchronization

/// Checks files beneath output roots against their expected size and digests, never
/// following a symbolic link beneath a root.
///
/// Per file: the parent directory is opened beneath the root (one `openat2`, see
/// `PathBeneath`), the name is `fstatat`-ed without following it, and only a regular file of
/// the expected size is opened (`O_RDONLY | O_NOFOLLOW | O_NONBLOCK`, so a FIFO swapped in
/// cannot block), re-checked with `fstat`, and hashed: small files through one `read` into a
/// reused buffer, large ones through `MappedFile`. All expected algorithms share one pass.
///
/// The calls block; run them on a thread of your own, not on Swift concurrency's pool.
public struct FileChecker: Sendable {
    /// Whether directories are opened with one `openat2` call where the kernel has it. Tests
    /// turn it off to cover the component-by-component walk that replaces it elsewhere.
    var usesOpenat2 = true

    public init() {}

    /// The number of online CPUs, the default width of `checkAll`.
    public static var defaultParallelism: Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    /// Checks one file.
    public func check(_ expectation: FileExpectation) -> FileCheck {
        checkAll([expectation], parallelism: 1).first ?? .missing
    }

    /// Checks every file, hashing on up to `parallelism` threads; the result has one entry per
    /// expectation, in the same order.
    ///
    /// Files are grouped by directory and handed out in units of up to 256 files or 4 MiB of
    /// expected hashing, so each unit opens its directory once. When a directory turns out to
    /// be missing (or a symlink, or not a directory), the component at fault is remembered and
    /// every file beneath it is answered from memory without a system call: planning against
    /// an empty output root costs about one call per top-level directory (per call: plans and
    /// verifications check a batch of slices at a time).
    public func checkAll(_ expectations: [FileExpectation], parallelism: Int = FileChecker.defaultParallelism) -> [FileCheck] {
        checkAll(expectations, parallelism: parallelism, failures: DirectoryFailures())
    }

    /// What ``check(_:parallelism:timed:observed:)`` found, one entry per expectation in order.
    public struct Results: Sendable {
        public var checks: [FileCheck]
        /// Seconds each check took; empty unless timed.
        public var seconds: [Float]
        /// How each file that passed was proven, and its identity then; empty unless observed.
        public var observations: [FileObservation]
    }

    /// `checkAll`, optionally timing each check and observing how each passing file was proven
    /// (``FileObservation``: what the mirror state records).
    public func check(
        _ expectations: [FileExpectation], parallelism: Int = FileChecker.defaultParallelism, timed: Bool = false, observed: Bool = false
    ) -> Results {
        let results = run(expectations, parallelism: parallelism, failures: DirectoryFailures(), timed: timed, observed: observed)
        return Results(checks: results.array(), seconds: results.secondsArray(), observations: results.observationsArray())
    }

    /// `checkAll` remembering failed directories in `failures` (tests read how many walks failed).
    func checkAll(_ expectations: [FileExpectation], parallelism: Int, failures: DirectoryFailures) -> [FileCheck] {
        run(expectations, parallelism: parallelism, failures: failures, timed: false, observed: false).array()
    }

    private func run(_ expectations: [FileExpectation], parallelism: Int, failures: DirectoryFailures, timed: Bool, observed: Bool) -> ResultSlots {
        let results = ResultSlots(count: expectations.count, timed: timed, observed: observed)
        guard !expectations.isEmpty else { return results }
        let batch = CheckBatch(expectations)
        let roots = batch.rootPaths.map { PathBeneath.openRoot($0, for: .lookup) }
        defer {
            for root in roots {
                if case .descriptor(let fd) = root { closeDescriptor(fd) }
            }
        }
        let nextUnit = Atomic<Int>(0)
        let usesOpenat2 = usesOpenat2

        let work = { @Sendable () -> Void in
            let worker = CheckWorker(usesOpenat2: usesOpenat2)
            while true {
                let unit = nextUnit.add(1, ordering: .relaxed).oldValue
                guard unit < batch.units.count else { return }
                worker.process(
                    batch.units[unit], of: batch, expectations: expectations, roots: roots,
                    failures: failures, into: results)
            }
        }
        let width = min(max(1, parallelism), batch.units.count)
        if width == 1 {
            work()
        } else {
            DispatchQueue.concurrentPerform(iterations: width) { _ in work() }
        }
        return results
    }
}

/// The expectations grouped by root and parent directory, cut into units of work.
struct CheckBatch: Sendable {
    struct Group: Sendable {
        var root: Int
        var directory: Substring
        var files: [Int] = []
    }

    struct Unit: Sendable {
        var group: Int
        var files: Range<Int>  // indices into the group's `files`
    }

    private(set) var rootPaths: [String] = []
    private(set) var groups: [Group] = []
    private(set) var units: [Unit] = []

    static let maxFilesPerUnit = 256
    static let maxBytesPerUnit: Int64 = 4 << 20

    init(_ expectations: [FileExpectation]) {
        struct Key: Hashable {
            var root: Int
            var directory: Substring
        }
        var rootIndex: [String: Int] = [:]
        var groupIndex: [Key: Int] = [:]
        // Manifests list a directory's files together: compare with the previous file
        // before paying for a hash lookup.
        var lastRoot: (path: String, index: Int)?
        var lastGroup: Key?
        var lastGroupIndex = 0
        for (index, expectation) in expectations.enumerated() {
            let root: Int
            if let last = lastRoot, last.path == expectation.root {
                root = last.index
            } else if let known = rootIndex[expectation.root] {
                root = known
                lastRoot = (expectation.root, known)
            } else {
                root = rootPaths.count
                rootPaths.append(expectation.root)
                rootIndex[expectation.root] = root
                lastRoot = (expectation.root, root)
            }
            let directory = SlashPath.split(expectation.relativePath).folder
            if let last = lastGroup, last.root == root, last.directory == directory {
                groups[lastGroupIndex].files.append(index)
                continue
            }
            let key = Key(root: root, directory: directory)
            let group: Int
            if let known = groupIndex[key] {
                group = known
            } else {
                group = groups.count
                groups.append(Group(root: root, directory: directory))
                groupIndex[key] = group
            }
            groups[group].files.append(index)
            lastGroup = key
            lastGroupIndex = group
        }
        for (groupNumber, group) in groups.enumerated() {
            var start = 0
            var bytes: Int64 = 0
            for (position, file) in group.files.enumerated() {
                let expectation = expectations[file]
                if expectation.isHashed {
                    // A file of unknown size may be large: let it fill a unit by itself.
                    bytes += expectation.size.map { max(0, $0) } ?? Self.maxBytesPerUnit
                }
                if position + 1 - start >= Self.maxFilesPerUnit || bytes >= Self.maxBytesPerUnit {
                    units.append(Unit(group: groupNumber, files: start..<(position + 1)))
                    start = position + 1
                    bytes = 0
                }
            }
            if start < group.files.count {
                units.append(Unit(group: groupNumber, files: start..<group.files.count))
            }
        }
    }
}

/// Directories found missing or wrong, keyed by root and the `/`-joined path of the
/// component at fault, so that siblings and descendants are answered without a system call.
final class DirectoryFailures: Sendable {
    private struct Key: Hashable {
        var root: Int
        var directory: String
    }

    private let failures = Mutex<[Key: FileCheck]>([:])
    private let records = Atomic<Int>(0)

    /// How many failed walks were recorded: one per directory at fault when the memory works,
    /// plus one per worker that walked the same directory before the first record landed.
    var recordCount: Int { records.load(ordering: .relaxed) }

    /// The recorded failure of `components` or of one of its ancestors.
    func failure(root: Int, components: [Substring]) -> FileCheck? {
        failures.withLock { failures in
            guard !failures.isEmpty else { return nil }
            var prefix = ""
            for component in components {
                if !prefix.isEmpty { prefix += "/" }
                prefix += component
                if let failure = failures[Key(root: root, directory: prefix)] { return failure }
            }
            return nil
        }
    }

    func record(_ failure: FileCheck, root: Int, components: ArraySlice<Substring>) {
        let key = Key(root: root, directory: components.joined(separator: "/"))
        failures.withLock { $0[key] = failure }
        records.add(1, ordering: .relaxed)
    }
}

/// The result array, written by several workers at once.
final class ResultSlots: @unchecked Sendable {
    // @unchecked: every index belongs to exactly one unit and each unit to exactly one
    // worker, so no slot is written twice or concurrently; concurrentPerform returns only
    // after every worker has finished, which orders all writes before `array()`.
    private let slots: UnsafeMutableBufferPointer<FileCheck>
    /// Seconds each check took, when timed (4 bytes a slice; nothing otherwise).
    let times: UnsafeMutableBufferPointer<Float>?
    /// How each passing file was proven, when observed.
    let observations: UnsafeMutableBufferPointer<FileObservation>?

    init(count: Int, timed: Bool = false, observed: Bool = false) {
        slots = .allocate(capacity: count)
        slots.initialize(repeating: .missing)
        if timed {
            let t = UnsafeMutableBufferPointer<Float>.allocate(capacity: count)
            t.initialize(repeating: 0)
            times = t
        } else {
            times = nil
        }
        if observed {
            let o = UnsafeMutableBufferPointer<FileObservation>.allocate(capacity: count)
            o.initialize(repeating: FileObservation())
            observations = o
        } else {
            observations = nil
        }
    }

    deinit {
        slots.deinitialize()
        slots.deallocate()
        times?.deallocate()
        observations?.deallocate()
    }

    func secondsArray() -> [Float] { times.map { Array($0) } ?? [] }
    func observationsArray() -> [FileObservation] { observations.map { Array($0) } ?? [] }

    subscript(index: Int) -> FileCheck {
        get { slots[index] }
        set { slots[index] = newValue }
    }

    func array() -> [FileCheck] { Array(slots) }
}

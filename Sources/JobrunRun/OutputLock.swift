import JobrunCore
#if canImport(Glibc)
internal import CLinux
#endif
import JobrunSystem

/// One `apply` at a time per output root: an exclusive `flock` on each root folder, held for the
/// whole run.
///
/// Two applies writing the same slices (a cron job that overlaps its previous run, say) would
/// share partial files: one could truncate a partial the other is about to rename into place,
/// or splice two versions of a file whose slice has no digest. The lock makes the second run
/// stop before it plans or fetches anything (or wait, with a timeout).
///
/// Why a lock on the folder itself and not a lock file inside it:
/// - The kernel drops a `flock` when its holder dies, `kill -9` included, so there is never a
///   stale lock to remove by hand.
/// - Nothing is added to the mirror. A lock file would be published by a web server serving the
///   mirror, and `verify --extra` would report it.
///
/// Roots are locked in the order of their device and inode, so two runs that each need several
/// roots cannot each hold one and wait for the other. Two paths naming one folder (`mirror` and
/// `./link-to-mirror`) are locked once: a second `flock` on another descriptor of the same
/// folder would conflict with the first, in the same process.
///
/// A file system without `flock` on folders (NFS emulates it with byte-range locks, which need
/// a descriptor open for writing) gets a warning, and the run goes on unlocked.
///
/// The holder is named from `/proc` (``LockHolder``), with its run id: while it holds locks, a
/// run keeps an anonymous file (`memfd_create`) named `jobrun-run:RUN_ID` open, which
/// `/proc/PID/fd` shows to a waiting run of the same user. It lives as long as the process and
/// touches no file system, so the mirror stays as it was.
public final class OutputLock {
    /// Why a root could not be locked.
    public struct Contention: Error, Sendable, Hashable {
        /// The output root as the manifests name it.
        public var root: String
        /// Who holds the lock, when the system says (`/proc/locks` on Linux).
        public var holder: LockHolder?
        /// The timeout this run waited out, shared by all its roots (`nil`: it did not wait).
        public var waited: Duration?

        public var message: String {
            let who = holder.map { "by \($0.description)" } ?? "by another process"
            if let waited {
                return "the output root '\(root)' is still locked after waiting \(DurationParser.format(milliseconds: waited.wholeMilliseconds)), \(who)"
            }
            return "the output root '\(root)' is locked \(who): another apply is writing to it"
        }
    }

    /// The descriptors whose locks this run holds (closed by ``release()``, or at exit), and the
    /// one that names the run (``LockHolder/runIDPrefix``).
    private var descriptors: [Int32]
    /// Roots left unlocked because their file system has no `flock` for folders, as warnings.
    public let warnings: [String]

    private init(descriptors: [Int32], warnings: [String]) {
        self.descriptors = descriptors
        self.warnings = warnings
    }

    deinit { release() }

    /// Drops every lock: closing the last descriptor of an open folder releases its `flock`.
    public func release() {
        for fd in descriptors { close(fd) }
        descriptors = []
    }

    /// An anonymous file named after `runID` (no descriptor where the system has none).
    static func nameHolder(runID: String?) -> Int32? {
        #if canImport(Glibc)
        guard let runID else { return nil }
        let fd = memfd_create(LockHolder.runIDPrefix + runID, JOBRUN_MFD_CLOEXEC)
        return fd >= 0 ? fd : nil
        #else
        return nil
        #endif
    }

    /// Locks every root in `roots`, creating missing ones as `apply` would.
    ///
    /// A root that cannot be created or opened is skipped: no run can write there, and the
    /// slices below it report why. With a `timeout` above zero a held root is retried every
    /// ``retryInterval`` until the deadline, and `waiting` is told once per root. `runID` names
    /// this run to others that find the roots locked.
    /// - Throws: ``Contention`` for the first root still held; locks already taken are released.
    public static func acquire(
        roots: [String], timeout: Duration = .zero, runID: String? = nil, waiting: (String, LockHolder?) -> Void = { _, _ in }
    ) throws(Contention) -> OutputLock {
        struct Opened {
            var root: String
            var fd: Int32
            var device: UInt64
            var inode: UInt64
        }
        var opened: [Opened] = []
        for root in Set(roots).sorted() {
            guard let fd = try? OutputDirectory.openRoot(root) else { continue }
            var st = stat()
            guard fstat(fd, &st) == 0 else {
                close(fd)
                continue
            }
            // `dev_t` is signed on Darwin: keep its bits, never trap on them.
            let (device, inode) = (UInt64(truncatingIfNeeded: st.st_dev), UInt64(truncatingIfNeeded: st.st_ino))
            if opened.contains(where: { $0.device == device && $0.inode == inode }) {
                close(fd)
                continue
            }
            opened.append(Opened(root: root, fd: fd, device: device, inode: inode))
        }
        opened.sort { ($0.device, $0.inode) < ($1.device, $1.inode) }

        let deadline = ContinuousClock.now + timeout
        var held: [Int32] = []
        var warnings: [String] = []
        for (index, entry) in opened.enumerated() {
            var hasReportedWait = false
            while true {
                if flock(entry.fd, LOCK_EX | LOCK_NB) == 0 {
                    held.append(entry.fd)
                    break
                }
                let code = errno
                if code == EINTR { continue }
                guard code == EWOULDBLOCK else {
                    warnings.append(
                        "cannot lock the output root '\(entry.root)' (\(systemErrorText(code))): another apply into it at the same time would not be noticed")
                    close(entry.fd)
                    break
                }
                // The holder is looked up only to be named: once when the wait starts, once when
                // it ends in failure (it may have changed hands meanwhile).
                let now = ContinuousClock.now
                guard now < deadline else {
                    let holder = LockHolder.find(device: entry.device, inode: entry.inode)
                    for fd in held { close(fd) }
                    for rest in opened[index...] { close(rest.fd) }
                    throw Contention(root: entry.root, holder: holder, waited: timeout > .zero ? timeout : nil)
                }
                if !hasReportedWait {
                    waiting(entry.root, LockHolder.find(device: entry.device, inode: entry.inode))
                    hasReportedWait = true
                }
                let pause = min(retryInterval, deadline - now)
                usleep(UInt32(max(1, pause.wholeMilliseconds) * 1000))
            }
        }
        if !held.isEmpty, let name = nameHolder(runID: runID) { held.append(name) }
        return OutputLock(descriptors: held, warnings: warnings)
    }

    /// How often a held root is tried again while waiting.
    static let retryInterval: Duration = .milliseconds(100)
}

/// The process holding a lock, as `/proc/locks` and `/proc/PID` describe it.
public struct LockHolder: Sendable, Hashable, CustomStringConvertible {
    public var pid: Int32
    /// The process's name (`/proc/PID/comm`), when readable.
    public var command: String?
    /// How long the process has run, when known.
    public var runningFor: Duration?
    /// The run id of the jobrun holding it, when it names one (``OutputLock``).
    public var runID: String?

    /// `pid 7 (jobrun, run 01JD…, running for 3h 2m)`.
    public var description: String {
        let details = [command, runID.map { "run \($0)" }, runningFor.map { "running for \(Self.format($0))" }].compactMap { $0 }
        return details.isEmpty ? "pid \(pid)" : "pid \(pid) (\(details.joined(separator: ", ")))"
    }

    /// `3h 2m`, `12m 5s`, `41s`: two units at most, enough to tell a stuck run from a busy one.
    static func format(_ duration: Duration) -> String {
        let seconds = max(0, duration.components.seconds)
        let (h, m, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60)
        if h > 0 { return "\(h)h \(m)m" }
        if m > 0 { return "\(m)m \(s)s" }
        return "\(s)s"
    }

    /// The holder of a `flock` on the file with this device and inode, or `nil` when the system
    /// does not say (no `/proc`, as on macOS, or the holder lives in another PID namespace).
    static func find(device: UInt64, inode: UInt64) -> LockHolder? {
        guard let locks = FileReader.text("/proc/locks", limit: 4 << 20) else { return nil }
        let key = locksKey(device: device, inode: inode)
        guard let pid = holderPID(inProcLocks: locks, key: key) else { return nil }
        var holder = LockHolder(pid: pid)
        if case .success(let comm) = FileReader.read("/proc/\(pid)/comm", limit: 4096) {
            // The name is another process's choice (at most 15 bytes): keep it printable.
            let printable = comm.filter { $0 >= 0x20 && $0 < 0x7F }
            if !printable.isEmpty { holder.command = String(decoding: printable, as: UTF8.self) }
        }
        holder.runningFor = runningTime(ofPID: pid)
        holder.runID = runID(ofPID: pid)
        return holder
    }

    /// The name of the anonymous file by which a jobrun holding output roots names its run.
    static let runIDPrefix = "jobrun-run:"

    /// The run id process `pid` names (``OutputLock``): the `/memfd:jobrun-run:ID (deleted)`
    /// link among its descriptors. Unreadable (another user's process) or absent: `nil`.
    static func runID(ofPID pid: Int32) -> String? {
        let folder = "/proc/\(pid)/fd"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return nil }
        for name in names {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + name),
                let id = runID(inLink: target)
            else { continue }
            return id
        }
        return nil
    }

    /// `ID` of a descriptor's link `/memfd:jobrun-run:ID (deleted)`; only the characters a run id
    /// may hold are taken, since the name is another process's.
    static func runID(inLink target: String) -> String? {
        let prefix = "/memfd:" + runIDPrefix
        guard target.hasPrefix(prefix) else { return nil }
        var id = target.dropFirst(prefix.count)
        if id.hasSuffix(" (deleted)") { id = id.dropLast(" (deleted)".count) }
        let isAllowed = { (c: Character) in c.isASCII && (c.isLetter || c.isNumber || ".-_:".contains(c)) }
        guard !id.isEmpty, id.count <= 128, id.allSatisfy(isAllowed) else { return nil }
        return String(id)
    }

    /// `/proc/locks` names a file `MAJOR:MINOR:INODE`, the device numbers in hex of at least two
    /// digits (the kernel's `%02x:%02x:%lu`), split as glibc's `major()`/`minor()` split `st_dev`.
    static func locksKey(device: UInt64, inode: UInt64) -> String {
        // glibc's gnu_dev_major/minor, with its 32-bit casts.
        let major = ((device >> 8) & 0xFFF) | ((device >> 32) & 0xFFFF_F000)
        let minor = (device & 0xFF) | ((device >> 12) & 0xFFFF_FF00)
        func hex(_ v: UInt64) -> String {
            let digits = String(v, radix: 16)
            return digits.count < 2 ? "0" + digits : digits
        }
        return "\(hex(major)):\(hex(minor)):\(inode)"
    }

    /// The pid of the `FLOCK` line for `key` in `/proc/locks` text. Lines read
    /// `1: FLOCK  ADVISORY  WRITE 1722 fe:00:16312625 0 EOF`; a waiter's line starts `1: -> FLOCK`
    /// and is skipped. A pid of 0 or below (a holder in another PID namespace) is no answer.
    ///
    /// Where `stat` and `/proc/locks` disagree on the device (btrfs gives each subvolume a device
    /// number of its own for `stat`), a line whose inode alone matches is taken, if it is the only
    /// holder of that inode.
    static func holderPID(inProcLocks text: String, key: String) -> Int32? {
        let inodeSuffix = key.lastIndex(of: ":").map { key[$0...] } ?? key[...]
        var byInode: Set<Int32> = []
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[1] == "FLOCK", let pid = Int32(fields[4]), pid > 0 else { continue }
            if fields[5] == key { return pid }
            if fields[5].hasSuffix(inodeSuffix) { byInode.insert(pid) }
        }
        return byInode.count == 1 ? byInode.first : nil
    }

    /// How long process `pid` has run: its start (`/proc/PID/stat` field 22, clock ticks after
    /// boot) against `/proc/uptime`.
    static func runningTime(ofPID pid: Int32) -> Duration? {
        guard let stat = FileReader.text("/proc/\(pid)/stat", limit: 4096), let uptime = FileReader.text("/proc/uptime", limit: 4096)
        else { return nil }
        return runningTime(stat: stat, uptime: uptime, ticksPerSecond: Int64(sysconf(Int32(_SC_CLK_TCK))))
    }

    /// The arithmetic of ``runningTime(ofPID:)``. The command name in `stat` is in parentheses
    /// and may hold spaces, so fields are counted after its last `)`: the state is field 3,
    /// `starttime` field 22.
    static func runningTime(stat: String, uptime: String, ticksPerSecond: Int64) -> Duration? {
        guard ticksPerSecond > 0, let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let ticks = Int64(fields[19]),
            let upText = uptime.split(separator: " ").first, let up = Double(upText)
        else { return nil }
        let started = Double(ticks) / Double(ticksPerSecond)
        return .milliseconds(Int64(max(0, up - started) * 1000))
    }
}

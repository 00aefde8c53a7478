public import JobrunCore
public import JobrunState
public import JobrunSystem
#if canImport(Glibc)
internal import CLinux
#endif

extension MirrorStates {
    /// Files changed this recently may still have data only in memory: what a crash would lose
    /// while their identity (metadata) survives. The kernel writes dirty data back within about
    /// 30 s; twice that, and a margin.
    static let writebackHorizon: Int64 = 120_000_000_000

    /// Forgets the records `proofs` found stale, and records what they proved. The file system
    /// of a proven file that changed within ``writebackHorizon`` is synced first (a folder below
    /// the root may be another mount), so that no record claims bytes a crash could still take
    /// back; the files of a file system whose sync failed are not recorded. `flush` syncs a
    /// descriptor's file system (``FileSystemSet/flush(_:)`` unless a test gives another).
    public func learn(_ proofs: CheckProofs, flush: (Int32) -> Int32? = FileSystemSet.flush) {
        for root in proofs.stale.keys.sorted() { forget(proofs.stale[root] ?? [], root: root) }
        let now = FileIdentity.now()
        for root in proofs.proven.keys.sorted() {
            var slices = proofs.proven[root] ?? []
            // A change time so far back that the difference overflows is old.
            let isYoung = { (s: ProvenSlice) in
                let (age, over) = now.subtractingReportingOverflow(s.file.ctimeNanoseconds)
                return !over && age < Self.writebackHorizon
            }
            let young = slices.filter(isYoung)
            if !young.isEmpty {
                let unsynced = Self.syncFileSystems(of: young, root: root, flush: flush)
                if !unsynced.isEmpty { slices.removeAll { isYoung($0) && unsynced.contains($0.file.device) } }
            }
            record(slices, root: root)
        }
    }

    /// Flushes the file system of each of `slices`' files below `root`, through the folder of
    /// one of its files; the devices that could not be synced: the flush failed, or no folder of
    /// theirs opened on the device the file was proven on.
    static func syncFileSystems(of slices: [ProvenSlice], root: String, flush: (Int32) -> Int32? = FileSystemSet.flush) -> Set<UInt64> {
        let rootFD = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { if rootFD >= 0 { close(rootFD) } }
        guard rootFD >= 0 else { return Set(slices.map(\.file.device)) }
        var synced = Set<UInt64>()
        var failed = Set<UInt64>()
        var triedFolders = Set<Substring>()
        for slice in slices {
            let device = slice.file.device
            if synced.contains(device) || failed.contains(device) { continue }
            let folder = SlashPath.split(slice.path).folder
            guard triedFolders.insert(folder).inserted else { continue }
            let fd = folder.isEmpty ? rootFD : openat(rootFD, String(folder), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            defer { if fd >= 0 && fd != rootFD { close(fd) } }
            // Another folder on the device may still open.
            guard fd >= 0, FileSystemSet.device(of: fd) == device else { continue }
            if flush(fd) == nil { synced.insert(device) } else { failed.insert(device) }
        }
        return Set(slices.map(\.file.device)).subtracting(synced)
    }
}

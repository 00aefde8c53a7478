import JobrunCore
public import JobrunState
#if canImport(Glibc)
internal import CLinux
#endif

extension MirrorStates {
    /// Files changed this recently may still have data only in memory: what a crash would lose
    /// while their identity (metadata) survives. The kernel writes dirty data back within about
    /// 30 s; twice that, and a margin.
    static let writebackHorizon: Int64 = 120_000_000_000

    /// Forgets the records `proofs` found stale, and records what they proved. A root where a
    /// proven file changed within ``writebackHorizon`` is synced first, so that no record claims
    /// bytes a crash could still take back; if that sync fails, those files are not recorded.
    public func learn(_ proofs: CheckProofs) {
        for root in proofs.stale.keys.sorted() { forget(proofs.stale[root] ?? [], root: root) }
        let now = FileIdentity.now()
        for root in proofs.proven.keys.sorted() {
            var slices = proofs.proven[root] ?? []
            let isYoung = { (s: ProvenSlice) in now - s.file.ctimeNanoseconds < Self.writebackHorizon }
            if slices.contains(where: isYoung), !Self.syncFileSystem(of: root) { slices.removeAll(where: isYoung) }
            record(slices, root: root)
        }
    }

    /// Flushes the file system `root` is on; whether it worked.
    static func syncFileSystem(of root: String) -> Bool {
        let fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        #if os(Linux)
        return syncfs(fd) == 0
        #else
        sync()
        return true
        #endif
    }
}

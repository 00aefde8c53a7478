import JobrunCore
import JobrunFiles
import JobrunSystem

/// Verified partial files that take their final names together (the commit protocol of
/// `RunDriver+Commit`): the file systems of each output root are synced once, so that the
/// files' data is on disk, and then each file is renamed into place. ``perform()`` runs on the ``DiskWorker``'s thread,
/// which owns the files until the driver has the ``Result``; a crash at any point leaves
/// every final path holding a verified file or nothing, as the sync precedes every rename.
struct CommitBatch: Sendable {
    struct File {
        let job: SliceID
        let body: VerifiedBody
        /// Its output root: an index into `roots`.
        let root: Int
    }

    /// The output roots of the files, with the file systems of each one's folders (its
    /// ``OutputDirectory``'s descriptors, open for as long as the run).
    var roots: [(path: String, fileSystems: FileSystemSet)] = []
    var files: [File] = []

    /// What happened to each file, in the order of `files`.
    enum FileResult: Equatable, Sendable {
        /// In place. `identity` is the file's just after the rename, `nil` when the name no longer
        /// refers to it as it was closed (see ``renamedIdentity(of:)``).
        case renamed(identity: FileIdentity?)
        /// A revalidation's body whose bytes are those of the file in place: the file was kept
        /// (its identity, as it was hashed) and the partial file removed.
        case unchanged(identity: FileIdentity)
        /// A sync of its root's file systems failed with this error number: the file was not renamed.
        case notSynced(errno: Int32)
        case renameFailed(WriteFailure)
        /// The partial file's name no longer refers to the file that was verified (or the file's
        /// identity was never known): nothing was renamed, and the partial's metadata is removed.
        case notTheVerifiedFile
    }

    struct Result: Sendable {
        /// The roots synced, whose renames the driver had settled before are durable now.
        var synced: [String] = []
        var files: [FileResult] = []
    }

    /// Adds `body`'s file (job `job`) under `root`.
    mutating func add(job: SliceID, body: VerifiedBody, root path: String, fileSystems: @autoclosure () -> FileSystemSet) {
        let index: Int
        if let known = roots.lastIndex(where: { $0.path == path }) {
            index = known
        } else {
            index = roots.count
            roots.append((path, fileSystems()))
        }
        files.append(File(job: job, body: body, root: index))
    }

    func perform() -> Result {
        var result = Result()
        var syncErrors = [Int32?](repeating: nil, count: roots.count)
        for (i, root) in roots.enumerated() {
            if let error = root.fileSystems.sync() {
                syncErrors[i] = error
            } else {
                result.synced.append(root.path)
            }
        }
        result.files.reserveCapacity(files.count)
        for entry in files {
            if let error = syncErrors[entry.root] {
                result.files.append(.notSynced(errno: error))
                continue
            }
            let file = entry.body.file
            // A commit renames the very file that was verified, never whatever took its name since.
            var status = stat()
            guard fstatat(file.directoryFD, file.partName, &status, AT_SYMLINK_NOFOLLOW) == 0 else {
                result.files.append(.renameFailed(WriteFailure(path: file.displayPath, operation: "rename into", errno: errno)))
                continue
            }
            guard let closed = file.closedIdentity, FileIdentity(status).isSameWrite(as: closed) else {
                // The validator it holds describes the verified file, not the one there now.
                unlinkat(file.directoryFD, file.metaName, 0)
                result.files.append(.notTheVerifiedFile)
                continue
            }
            if entry.body.replacesOnlyIfDifferent, let kept = Self.sameBytesInPlace(as: entry.body) {
                unlinkat(file.directoryFD, file.partName, 0)
                if file.mayHaveMetadata { unlinkat(file.directoryFD, file.metaName, 0) }
                result.files.append(.unchanged(identity: kept))
                continue
            }
            if renameat(file.directoryFD, file.partName, file.directoryFD, file.fileName) != 0 {
                result.files.append(
                    .renameFailed(WriteFailure(path: file.displayPath, operation: "rename into", errno: errno, at: file.fileName, in: file.directoryFD)))
                continue
            }
            if file.mayHaveMetadata { unlinkat(file.directoryFD, file.metaName, 0) }
            result.files.append(.renamed(identity: Self.renamedIdentity(of: file)))
        }
        return result
    }

    /// The largest file whose bytes a revalidation's body is compared with.
    static let sameBytesLimit = ByteCount(64 << 20)

    /// The identity of the file in `body`'s place when it is a regular file holding the body's
    /// bytes (its size and SHA-256, unchanged while it was read); `nil` otherwise, or when it
    /// cannot be read: the body then replaces it.
    static func sameBytesInPlace(as body: VerifiedBody) -> FileIdentity? {
        // Hashed on the disk worker's thread, between other commits: a large file is replaced
        // instead (atomically all the same) rather than holding them up.
        guard body.size <= sameBytesLimit, let sha256 = body.digests.first(where: { $0.algorithm == .sha256 }) else { return nil }
        let file = body.file
        let fd = openat(file.directoryFD, file.fileName, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var before = stat()
        guard fstat(fd, &before) == 0, (before.st_mode & S_IFMT) == S_IFREG, Int64(before.st_size) == body.size.value else { return nil }
        guard let mapped = try? MappedFile(fileDescriptor: fd, path: file.displayPath), let digests = try? mapped.digests([.sha256]),
            digests == [sha256]
        else { return nil }
        var after = stat()
        guard fstat(fd, &after) == 0, FileIdentity(after) == FileIdentity(before) else { return nil }
        return FileIdentity(after)
    }

    /// The identity of `file` as it was closed, just after its rename into place; `nil` when
    /// the name no longer refers to it as it was closed (the rename changes only the change time).
    static func renamedIdentity(of file: PartialFile) -> FileIdentity? {
        guard let closed = file.closedIdentity else { return nil }
        var status = stat()
        guard fstatat(file.directoryFD, file.fileName, &status, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        let renamed = FileIdentity(status)
        return renamed.isSameWrite(as: closed) ? renamed : nil
    }
}

import JobrunCore
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

import JobrunCore
#if canImport(Glibc)
internal import CLinux
#endif
public import JobrunSystem

/// The file-system steps of an atomic publication (`publish: atomic`). A resource's next version
/// is built in `ROOT/.jobrun/publish/ID/next`, which starts as hard links to every file of the
/// published folder; once it is complete, one `renameat2(RENAME_EXCHANGE)` puts it in the
/// published folder's place and the replaced version in the stage's, from where it is retired to
/// `ROOT/.jobrun/publish/ID/STAMP-RUNID` and removed once its grace period is over. Nothing is
/// copied, and no file of a published version is ever written: the run replaces a stage's file
/// by renaming a new one over its name.
public enum StageFolder {
    /// Below the output root.
    public static let folder = ".jobrun/publish"

    /// The folder of a resource's stage and retired versions, below the output root.
    public static func base(of id: String) -> String { folder + "/" + id }

    /// A resource's stage, below the output root.
    public static func stage(of id: String) -> String { base(of: id) + "/next" }

    /// A file linked into a stage: its path below the published folder, and its identity
    /// before and after the link (which changes its change time).
    public struct Linked: Sendable, Hashable {
        public var path: String
        public var before: FileIdentity
        public var after: FileIdentity
    }

    /// What a stage came to once filled (``fill(root:published:stage:)``).
    public struct Filled: Sendable {
        /// The stage folder's inode: after a switch, the published folder has it.
        public var inode: UInt64
        public var linked: [Linked]
    }

    /// Makes the folder `stage` (below `root`, its missing parents too, no link followed) unless
    /// it is there; its inode.
    public static func create(root: String, stage: String) -> Result<UInt64, FileIOError> {
        withStage(root: root, stage: stage) { _, _, inode in .success(inode) }
    }

    /// Makes `stage` (below `root`; its missing parents too) unless it is there, and gives it a
    /// hard link to every regular file of `published` it lacks, and every folder and symbolic
    /// link (as a link with the same target). Partial downloads and `.jobrun` folders are not
    /// carried over. No link is followed on the way, in `published` or in the stage. Running it
    /// again after an interruption adds what the first run did not get to.
    public static func fill(root: String, published: String, stage: String) -> Result<Filled, FileIOError> {
        withStage(root: root, stage: stage) { rootFD, stageFD, inode in
            switch openFolder(published, beneath: rootFD) {
            case .success(let publishedFD?):
                defer { closeDescriptor(publishedFD) }
                var linker = Linker(root: root, published: published, stage: stage)
                _ = fchmod(stageFD, 0o700)
                linker.copy(from: publishedFD, to: stageFD, below: "")
                if let error = linker.error { return .failure(error) }
                // Once filled: a folder the published version may not write could not take its links before.
                var status = stat()
                if fstat(publishedFD, &status) == 0 { _ = fchmod(stageFD, status.st_mode & 0o7777) }
                return .success(Filled(inode: inode, linked: linker.linked))
            case .success(nil):
                return .success(Filled(inode: inode, linked: []))
            case .failure(let error):
                return .failure(error)
            }
        }
    }

    /// Runs `body` with the root's descriptor, the stage's (made as needed) and its inode.
    private static func withStage<T>(
        root: String, stage: String, _ body: (_ rootFD: Int32, _ stageFD: Int32, _ inode: UInt64) -> Result<T, FileIOError>
    ) -> Result<T, FileIOError> {
        let rootFD = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard rootFD >= 0 else { return .failure(FileIOError(path: root, operation: "open output root", code: errno)) }
        defer { closeDescriptor(rootFD) }
        var folders = Trash.Folders(rootFD: rootFD, rootPath: root)
        defer { folders.closeAll() }
        let stageFD: Int32
        do { stageFD = try folders.create(stage) } catch { return .failure(error) }
        var status = stat()
        guard fstat(stageFD, &status) == 0 else { return .failure(FileIOError(path: joinPath(root, stage), operation: "stat", code: errno)) }
        return body(rootFD, stageFD, UInt64(status.st_ino))
    }

    /// The inode of the folder `relative` below `root`, no link followed; `nil` when there is no
    /// folder there.
    public static func inode(ofFolder relative: String, root: String) -> UInt64? {
        let rootFD = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard rootFD >= 0 else { return nil }
        defer { closeDescriptor(rootFD) }
        guard case .success(let fd?) = openFolder(relative, beneath: rootFD) else { return nil }
        defer { closeDescriptor(fd) }
        var status = stat()
        return fstat(fd, &status) == 0 ? UInt64(status.st_ino) : nil
    }

    /// Whether the file system of resource `id`'s stage can exchange two folders, tried on two
    /// empty ones made beside it and removed: a file system that cannot (NFS, ZFS before 2.2) is
    /// found before a run fetches into a stage it could never publish.
    public static func probeExchange(root: String, id: String) -> Result<Void, FileIOError> {
        withStage(root: root, stage: base(of: id)) { _, fd, _ in
            for name in ["probe-a", "probe-b"] where mkdirat(fd, name, 0o700) != 0 && errno != EEXIST {
                return .failure(FileIOError(path: joinPath(root, base(of: id) + "/" + name), operation: "create folder", code: errno))
            }
            let exchanged = exchange(fd, "probe-a", fd, "probe-b") == 0 ? 0 : errno
            _ = unlinkat(fd, "probe-a", AT_REMOVEDIR)
            _ = unlinkat(fd, "probe-b", AT_REMOVEDIR)
            guard exchanged == 0 else {
                return .failure(FileIOError(path: joinPath(root, base(of: id)), operation: "exchange two folders (renameat2 RENAME_EXCHANGE)", code: exchanged))
            }
            return .success(())
        }
    }

    /// How a stage went into the published folder's place.
    public enum Switched: Sendable, Hashable {
        /// The two folders traded places: the replaced version is where the stage was.
        case exchanged
        /// There was no published folder: the stage became it (its parents made as needed).
        case moved
    }

    /// Puts `stage` in `published`'s place in one step, and flushes both folders' parents. A
    /// reader that opened the published folder before keeps the version it opened; one that opens
    /// it after gets the stage's. Refused (`EXDEV`, `EINVAL`) when the two are on different file
    /// systems or the file system cannot exchange folders: nothing moved then.
    public static func switchIn(root: String, stage: String, published: String) -> Result<Switched, FileIOError> {
        let rootFD = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard rootFD >= 0 else { return .failure(FileIOError(path: root, operation: "open output root", code: errno)) }
        defer { closeDescriptor(rootFD) }
        var folders = Trash.Folders(rootFD: rootFD, rootPath: root)
        defer { folders.closeAll() }
        // Every link and file of the stage on disk before it is published.
        #if os(Linux)
        if syncfs(rootFD) != 0 { return .failure(FileIOError(path: root, operation: "flush the file system", code: errno)) }
        #endif
        let (stageParent, stageName) = SlashPath.split(stage)
        let (publishedParent, publishedName) = SlashPath.split(published)
        let fromFD: Int32
        let toFD: Int32
        do {
            fromFD = try folders.create(String(stageParent))
            toFD = try folders.create(String(publishedParent))
        } catch {
            return .failure(error)
        }
        var switched = Switched.exchanged
        if exchange(fromFD, String(stageName), toFD, String(publishedName)) != 0 {
            guard errno == ENOENT, renameat(fromFD, String(stageName), toFD, String(publishedName)) == 0 else {
                return .failure(FileIOError(path: joinPath(root, published), operation: "exchange with '\(joinPath(root, stage))'", code: errno))
            }
            switched = .moved
        }
        // Both parents' new entries on disk before anything records the switch.
        _ = fsync(toFD)
        _ = fsync(fromFD)
        return .success(switched)
    }

    /// Renames the stage (holding a replaced version after a switch) beside it, to `name` or,
    /// when that is taken (two retirements in one second of one run), `name-2`, …; the name it got.
    public static func retire(root: String, id: String, as name: String) -> Result<String, FileIOError> {
        let base = joinPath(root, base(of: id))
        let rootFD = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard rootFD >= 0 else { return .failure(FileIOError(path: root, operation: "open output root", code: errno)) }
        defer { closeDescriptor(rootFD) }
        let fd: Int32
        switch openFolder(StageFolder.base(of: id), beneath: rootFD) {
        case .success(let opened?): fd = opened
        case .success(nil): return .failure(FileIOError(path: base, operation: "open folder", code: ENOENT))
        case .failure(let error): return .failure(error)
        }
        defer { closeDescriptor(fd) }
        for k in 1...1_000 {
            let candidate = k == 1 ? name : "\(name)-\(k)"
            if renameNew(fd, "next", candidate) == 0 {
                _ = fsync(fd)
                return .success(candidate)
            }
            guard errno == EEXIST else { return .failure(FileIOError(path: base + "/next", operation: "rename to '\(candidate)'", code: errno)) }
        }
        return .failure(FileIOError(path: base + "/next", operation: "rename to '\(name)'", code: EEXIST))
    }

    /// Renames `from` to `to` in the folder `fd` unless `to` is there (`EEXIST` then).
    private static func renameNew(_ fd: Int32, _ from: String, _ to: String) -> Int32 {
        #if os(Linux)
        return renameat2(fd, from, fd, to, UInt32(JOBRUN_RENAME_NOREPLACE))
        #else
        var status = stat()
        if fstatat(fd, to, &status, AT_SYMLINK_NOFOLLOW) == 0 {
            errno = EEXIST
            return -1
        }
        return renameat(fd, from, fd, to)
        #endif
    }

    /// What removing a folder of links came to.
    public struct Removal: Sendable {
        /// The names removed.
        public var removed: [String] = []
        /// Whether everything asked for is gone.
        public var isComplete = true
        /// The inodes of the files removed that had other links (those of the published version):
        /// their change time moved with the removal.
        public var shared: Set<UInt64> = []
    }

    /// Removes the retired versions of resource `id` whose grace (`keptFor` ms from the time in
    /// their name) is over at `now`. The stage and other names stay.
    @discardableResult
    public static func expire(root: String, id: String, keptFor: Int64, now: Int64) -> Removal {
        var removal = Removal()
        removal.removed = Trash.expireStamped(in: base(of: id), root: root, keptFor: keptFor, now: now) { path in
            remove(path, into: &removal)
            return removal.isComplete
        }
        return removal
    }

    /// Removes resource `id`'s stage (a version never published).
    @discardableResult
    public static func discard(root: String, id: String) -> Removal {
        var removal = Removal()
        guard let path = Trash.unlinkedPath(root: root, base(of: id)), FileStatus.kind(atPath: path + "/next") != nil else { return removal }
        remove(path + "/next", into: &removal)
        if removal.isComplete { removal.removed.append("next") }
        return removal
    }

    private static func remove(_ path: String, into removal: inout Removal) {
        sharedInodes(below: path, into: &removal.shared)
        if !TreeRemoval.remove(path) { removal.isComplete = false }
    }

    /// Adds the inodes of the regular files below `path` (no link followed) that have more than one link.
    static func sharedInodes(below path: String, into found: inout Set<UInt64>) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return }
        sharedInodes(in: fd, into: &found)
    }

    /// ``sharedInodes(below:into:)`` in the folder open on `fd`, which it closes.
    private static func sharedInodes(in fd: Int32, into found: inout Set<UInt64>) {
        guard let stream = fdopendir(fd) else {
            closeDescriptor(fd)
            return
        }
        defer { closedir(stream) }
        var status = stat()
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self) }
            guard name != "." && name != "..", fstatat(fd, name, &status, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            if FileStatus.isRegularFile(mode: status.st_mode) {
                if status.st_nlink > 1 { found.insert(UInt64(status.st_ino)) }
            } else if FileStatus.isDirectory(mode: status.st_mode) {
                let child = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                if child >= 0 { sharedInodes(in: child, into: &found) }
            }
        }
    }

    /// The folder `relative` below `rootFD` (``PathBeneath``: no link followed), opened to list;
    /// `nil` when it is not there. A link or a file on the way is `ELOOP` or `ENOTDIR`.
    static func openFolder(_ relative: String, beneath rootFD: Int32) -> Result<Int32?, FileIOError> {
        guard let components = PathBeneath.components(ofDirectory: Substring(relative)) else {
            return .failure(FileIOError(path: relative, operation: "open folder", code: EINVAL))
        }
        guard !components.isEmpty else { return .success(dup(rootFD)) }
        switch PathBeneath.openDirectory(components, beneath: rootFD, rootPath: relative, for: .listing) {
        case .descriptor(let fd): return .success(fd)
        case .failed(.missing, _): return .success(nil)
        case .failed(.ioError(let path, let code, _), _): return .failure(FileIOError(path: path, operation: "open folder", code: code))
        case .failed(.notRegularFile(let path, let kind, _), _):
            return .failure(FileIOError(path: path, operation: "open folder", code: kind == fileKindName(S_IFLNK) ? ELOOP : ENOTDIR))
        case .failed:
            return .failure(FileIOError(path: relative, operation: "open folder", code: ENOTDIR))
        }
    }

    /// `renameat2(RENAME_EXCHANGE)`: 0, or -1 with `errno` set.
    private static func exchange(_ fromFD: Int32, _ from: String, _ toFD: Int32, _ to: String) -> Int32 {
        #if os(Linux)
        return renameat2(fromFD, from, toFD, to, UInt32(JOBRUN_RENAME_EXCHANGE))
        #else
        errno = ENOTSUP
        return -1
        #endif
    }

    /// Copies a published folder's tree into a stage as links, depth first.
    private struct Linker {
        let root: String
        let published: String
        let stage: String
        var linked: [Linked] = []
        var error: FileIOError?

        mutating func copy(from sourceFD: Int32, to targetFD: Int32, below relative: String) {
            guard error == nil else { return }
            let source = dup(sourceFD)
            guard source >= 0, let stream = fdopendir(source) else {
                if source >= 0 { closeDescriptor(source) }
                error = FileIOError(path: joinPath(root, joinPath(published, relative)), operation: "list folder", code: errno)
                return
            }
            var entries: [String] = []
            errno = 0
            while let entry = readdir(stream) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self) }
                if name != "." && name != ".." { entries.append(name) }
                errno = 0
            }
            let listing = errno
            closedir(stream)
            guard listing == 0 else {
                error = FileIOError(path: joinPath(root, joinPath(published, relative)), operation: "list folder", code: listing)
                return
            }
            for name in entries.sorted() {
                // A partial download moves with the stage, where the run resumes it (it is written
                // in place, so it is never shared with the published version).
                if WorkingFileName.isReserved(name) {
                    _ = renameat(sourceFD, name, targetFD, name)
                    continue
                }
                let path = relative.isEmpty ? name : relative + "/" + name
                // Another output root's state inside would be left behind with the replaced version.
                guard name != MirrorStateFolder.name else {
                    error = FileIOError(
                        path: joinPath(root, joinPath(published, path)), operation: "publish atomically a folder that holds a mirror state", code: EEXIST)
                    return
                }
                var before = stat()
                guard fstatat(sourceFD, name, &before, AT_SYMLINK_NOFOLLOW) == 0 else {
                    if errno == ENOENT { continue }  // gone meanwhile
                    error = FileIOError(path: joinPath(root, joinPath(published, path)), operation: "stat", code: errno)
                    return
                }
                switch before.st_mode & S_IFMT {
                case S_IFREG:
                    link(name, path: path, before: before, from: sourceFD, to: targetFD)
                case S_IFDIR:
                    folder(name, path: path, mode: before.st_mode & 0o7777, from: sourceFD, to: targetFD)
                case S_IFLNK:
                    symbolicLink(name, path: path, from: sourceFD, to: targetFD)
                default:
                    continue  // a device, a pipe or a socket is no mirrored file
                }
                if error != nil { return }
            }
        }

        private mutating func link(_ name: String, path: String, before: stat, from sourceFD: Int32, to targetFD: Int32) {
            if linkat(sourceFD, name, targetFD, name, 0) != 0 {
                // A stage filled before an interruption already has it: whatever it holds is the stage's.
                guard errno == EEXIST else {
                    error = FileIOError(path: joinPath(root, joinPath(stage, path)), operation: "link", code: errno)
                    return
                }
                return
            }
            var after = stat()
            guard fstatat(targetFD, name, &after, AT_SYMLINK_NOFOLLOW) == 0 else { return }
            linked.append(Linked(path: path, before: FileIdentity(before), after: FileIdentity(after)))
        }

        /// Makes the folder in the stage with the published one's mode, and fills it.
        private mutating func folder(_ name: String, path: String, mode: mode_t, from sourceFD: Int32, to targetFD: Int32) {
            if mkdirat(targetFD, name, 0o700) != 0, errno != EEXIST {
                error = FileIOError(path: joinPath(root, joinPath(stage, path)), operation: "create folder", code: errno)
                return
            }
            let source = openat(sourceFD, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard source >= 0 else {
                // Gone or replaced by a file meanwhile: nothing of it to carry over.
                if errno == ENOENT || errno == ENOTDIR || errno == ELOOP { return }
                error = FileIOError(path: joinPath(root, joinPath(published, path)), operation: "open folder", code: errno)
                return
            }
            defer { closeDescriptor(source) }
            let target = openat(targetFD, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard target >= 0 else {
                error = FileIOError(path: joinPath(root, joinPath(stage, path)), operation: "open folder", code: errno)
                return
            }
            defer { closeDescriptor(target) }
            // A folder that was given its mode by an interrupted fill may need write permission back.
            _ = fchmod(target, 0o700)
            copy(from: source, to: target, below: path)
            _ = fchmod(target, mode)
        }

        private mutating func symbolicLink(_ name: String, path: String, from sourceFD: Int32, to targetFD: Int32) {
            var buffer = [CChar](repeating: 0, count: 4097)
            let count = readlinkat(sourceFD, name, &buffer, 4096)
            guard count >= 0 else {
                if errno == ENOENT || errno == EINVAL { return }  // gone, or no longer a link, meanwhile
                error = FileIOError(path: joinPath(root, joinPath(published, path)), operation: "read symbolic link", code: errno)
                return
            }
            buffer[count] = 0
            if symlinkat(buffer, targetFD, name) != 0, errno != EEXIST {
                error = FileIOError(path: joinPath(root, joinPath(stage, path)), operation: "create symbolic link", code: errno)
            }
        }
    }
}

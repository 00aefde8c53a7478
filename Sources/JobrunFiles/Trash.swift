import JobrunCore
import JobrunSystem

/// Where a prune puts what it removes: `ROOT/.jobrun/trash/STAMP/PATH`, one folder per run
/// (``folderName(atMilliseconds:runID:)``), the files as they were (renamed, never copied, so a
/// file keeps its inode and links), kept until ``expire(root:keptFor:now:)`` removes the folder.
/// Restoring a run's files is a copy of hard links back: `cp -al ROOT/.jobrun/trash/STAMP/. ROOT/`.
public enum Trash {
    /// Below the output root.
    public static let folder = ".jobrun/trash"

    /// `20261129T064500Z-RUNID`: its time first, so that names sort by age and say it.
    public static func folderName(atMilliseconds ms: Int64, runID: String) -> String {
        let seconds = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
        let compact = RFC3339.utcDateTime(secondsSince1970: seconds).filter { $0 != "-" && $0 != ":" } + "Z"
        let safeID = runID.filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == ".") }
        return compact + (safeID.isEmpty ? "" : "-" + safeID)
    }

    /// When a folder named by ``folderName(atMilliseconds:runID:)`` was made, in ms since the
    /// epoch; `nil` for another name.
    public static func madeAt(folderName name: String) -> Int64? {
        let stamp = name.prefix { $0 != "-" }
        guard stamp.count == 16, stamp.hasSuffix("Z") else { return nil }
        let digits = Array(stamp.dropLast())
        guard digits[8] == "T" else { return nil }
        let text =
            "\(String(digits[0..<4]))-\(String(digits[4..<6]))-\(String(digits[6..<8]))T\(String(digits[9..<11])):\(String(digits[11..<13])):\(String(digits[13..<15]))Z"
        return RFC3339.milliseconds(text)
    }

    /// What moving one file came to.
    public enum Moved: Sendable, Hashable {
        /// In the trash, at this path below the root; `workingFiles` of its partial download moved with it.
        case moved(trashPath: String)
        /// Gone before it could be moved (nothing to do).
        case gone
        case failed(FileIOError)
    }

    /// Why `paths` (below `root`) could not all be moved to its trash, one line each; empty when
    /// they can: each is there, not a folder, reached without a link, in a folder this process may
    /// write, and on the file system of the root's `.jobrun` (a rename cannot cross file systems).
    /// A prune checks them all before it moves any, so that it moves all of them or none.
    public static func obstacles(to paths: [String], root: String) -> [String] {
        guard !paths.isEmpty else { return [] }
        guard case .descriptor(let rootFD) = PathBeneath.openRoot(root, for: .listing) else { return ["'\(root)' cannot be opened"] }
        defer { closeDescriptor(rootFD) }
        var status = stat()
        let trashDevice: UInt64
        if fstatat(rootFD, MirrorStateFolder.name, &status, AT_SYMLINK_NOFOLLOW) == 0 {
            // The trash must be where it can be made: a folder of the state this process may
            // write, its trash (if there) a folder too.
            let state = joinPath(root, MirrorStateFolder.name)
            guard FileStatus.isDirectory(mode: status.st_mode) else { return ["'\(state)' is not a folder"] }
            trashDevice = UInt64(status.st_dev)
            var trashStatus = stat()
            if fstatat(rootFD, folder, &trashStatus, AT_SYMLINK_NOFOLLOW) == 0 {
                guard FileStatus.isDirectory(mode: trashStatus.st_mode) else { return ["'\(joinPath(root, folder))' is not a folder"] }
                if faccessat(rootFD, folder, W_OK, AT_EACCESS) != 0 { return ["'\(joinPath(root, folder))' cannot be written"] }
            } else if faccessat(rootFD, MirrorStateFolder.name, W_OK, AT_EACCESS) != 0 {
                return ["'\(state)' cannot be written"]
            }
        } else {
            guard fstat(rootFD, &status) == 0 else { return ["'\(root)' cannot be looked at"] }
            trashDevice = UInt64(status.st_dev)
        }
        var found: [String] = []
        for path in paths {
            let (parent, fileName) = SlashPath.split(path)
            let display = joinPath(root, path)
            guard let components = PathBeneath.components(ofDirectory: parent),
                case .descriptor(let folder) = PathBeneath.openDirectory(components, beneath: rootFD, rootPath: root, for: .listing)
            else {
                found.append("'\(display)': its folder cannot be opened without following a link")
                continue
            }
            defer { closeDescriptor(folder) }
            if fstatat(folder, String(fileName), &status, AT_SYMLINK_NOFOLLOW) != 0 {
                if errno != ENOENT { found.append("'\(display)': \(systemErrorText(errno))") }
            } else if FileStatus.isDirectory(mode: status.st_mode) {
                found.append("'\(display)' is a folder")
            } else if UInt64(status.st_dev) != trashDevice {
                found.append("'\(display)' is on another file system than '\(joinPath(root, Trash.folder))'")
            } else if faccessat(folder, ".", W_OK, AT_EACCESS) != 0 {
                found.append("'\(display)': its folder cannot be written (\(systemErrorText(errno)))")
            }
        }
        return found
    }

    /// Moves each of `paths` (below `root`, never through a link) into a new trash folder named
    /// `name` (`name-2`, … when one of that name is there already: never into another run's),
    /// with its partial download's working files, in order; the folder's name, and each path's fate.
    /// In the trash, each goes by its name in `names` when given (a staged file by its published path).
    public static func move(_ paths: [String], as names: [String]? = nil, root: String, into name: String) -> (folder: String, moved: [Moved]) {
        guard !paths.isEmpty else { return (name, []) }
        let rootFD: Int32
        switch PathBeneath.openRoot(root, for: .listing) {
        case .descriptor(let fd): rootFD = fd
        default:
            return (name, paths.map { _ in .failed(FileIOError(path: root, operation: "open", code: ENOENT)) })
        }
        defer { closeDescriptor(rootFD) }
        var folders = Folders(rootFD: rootFD, rootPath: root)
        defer { folders.closeAll() }
        let made: String
        do throws(FileIOError) {
            made = try folders.createNew(folder, named: name)
        } catch {
            return (name, paths.map { _ in .failed(error) })
        }
        let trash = folder + "/" + made
        let moved = paths.indices.map { k -> Moved in
            let path = paths[k]
            let (parent, fileName) = SlashPath.split(path)
            let trashParent = names.flatMap { $0.count == paths.count ? SlashPath.split($0[k]).folder : nil } ?? parent
            let display = joinPath(root, path)
            guard let components = PathBeneath.components(ofDirectory: parent) else {
                return .failed(FileIOError(path: display, operation: "move to the trash", code: EINVAL))
            }
            let source: Int32
            switch PathBeneath.openDirectory(components, beneath: rootFD, rootPath: root, for: .listing) {
            case .descriptor(let fd): source = fd
            case .failed(.missing, _): return .gone
            case .failed(let check, _):
                if case .ioError(let p, let code, _) = check { return .failed(FileIOError(path: p, operation: "open", code: code)) }
                return .failed(FileIOError(path: display, operation: "move to the trash", code: ENOTDIR))
            }
            defer { closeDescriptor(source) }
            let name = String(fileName)
            var status = stat()
            if fstatat(source, name, &status, AT_SYMLINK_NOFOLLOW) != 0 {
                return errno == ENOENT ? .gone : .failed(FileIOError(path: display, operation: "look at", code: errno))
            }
            guard !FileStatus.isDirectory(mode: status.st_mode) else {
                return .failed(FileIOError(path: display, operation: "move to the trash", code: EISDIR))
            }
            let target = trashParent.isEmpty ? trash : trash + "/" + trashParent
            let destination: Int32
            do throws(FileIOError) {
                destination = try folders.create(target)
            } catch {
                return .failed(error)
            }
            guard renameat(source, name, destination, name) == 0 else {
                return .failed(FileIOError(path: display, operation: "move to the trash", code: errno))
            }
            // Its partial download is of a file no slice names any more: it goes with it (one that
            // cannot is left as it is; the next run's plan removes what no slice resumes).
            for working in [WorkingFileName.partial(for: name), WorkingFileName.metadata(for: name)] {
                _ = renameat(source, working, destination, working)
            }
            return .moved(trashPath: target + "/" + name)
        }
        return (made, moved)
    }

    /// Removes the trash folders of `root` made longer than `keptFor` (ms) before `now`; the
    /// names of those removed, sorted. Folders of other names are left alone.
    @discardableResult
    public static func expire(root: String, keptFor: Int64, now: Int64) -> [String] {
        expireStamped(in: folder, root: root, keptFor: keptFor, now: now, removing: TreeRemoval.remove)
    }

    /// Removes the folders in `relative` (below `root`) named by ``folderName(atMilliseconds:runID:)``
    /// longer than `keptFor` (ms) before `now`, each by `removing` (whether it went); the names
    /// removed, sorted. Trash folders and replaced versions of a publication expire alike.
    static func expireStamped(in relative: String, root: String, keptFor: Int64, now: Int64, removing: (String) -> Bool) -> [String] {
        guard let path = unlinkedPath(root: root, relative) else { return [] }
        var removed: [String] = []
        for name in names(inFolder: path).sorted() {
            guard let made = madeAt(folderName: name), now - made >= keptFor else { continue }
            if removing(path + "/" + name) { removed.append(name) }
        }
        return removed
    }

    /// `root/relative` when it is a folder and no folder on the way below the root is a link:
    /// removal goes by path.
    static func unlinkedPath(root: String, _ relative: String) -> String? {
        var status = stat()
        var path = root
        for component in relative.split(separator: "/") {
            path = joinPath(path, String(component))
            guard lstat(path, &status) == 0, FileStatus.isDirectory(mode: status.st_mode) else { return nil }
        }
        return path
    }

    /// The names in the folder at `path` (not followed if a link), none when it cannot be listed.
    static func names(inFolder path: String) -> [String] {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0, let stream = fdopendir(fd) else {
            if fd >= 0 { closeDescriptor(fd) }
            return []
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Folders of the trash opened or made, kept open for the files after them.
    struct Folders {
        let rootFD: Int32
        let rootPath: String
        var open: [String: Int32] = [:]

        init(rootFD: Int32, rootPath: String) {
            self.rootFD = rootFD
            self.rootPath = rootPath
        }

        /// The descriptor of `relative` below the root, its missing folders made (none may be a link).
        mutating func create(_ relative: String) throws(FileIOError) -> Int32 {
            if let fd = open[relative] { return fd }
            var parent = rootFD
            var prefix = ""
            for component in relative.split(separator: "/") {
                prefix = prefix.isEmpty ? String(component) : prefix + "/" + component
                if let fd = open[prefix] {
                    parent = fd
                    continue
                }
                var fd = openat(parent, String(component), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                if fd < 0, errno == ENOENT {
                    if mkdirat(parent, String(component), 0o755) != 0, errno != EEXIST {
                        throw FileIOError(path: joinPath(rootPath, prefix), operation: "create folder", code: errno)
                    }
                    fd = openat(parent, String(component), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                }
                guard fd >= 0 else { throw FileIOError(path: joinPath(rootPath, prefix), operation: "open folder", code: errno) }
                open[prefix] = fd
                parent = fd
            }
            return parent
        }

        /// Makes the new folder `name` in `parent` (below the root, made as needed): `name`, or
        /// `name-2`, `name-3`, … when it is taken; the name made.
        mutating func createNew(_ parent: String, named name: String) throws(FileIOError) -> String {
            let fd = try create(parent)
            for k in 1...1_000 {
                let candidate = k == 1 ? name : "\(name)-\(k)"
                if mkdirat(fd, candidate, 0o700) == 0 { return candidate }
                guard errno == EEXIST else { throw FileIOError(path: joinPath(rootPath, parent + "/" + candidate), operation: "create folder", code: errno) }
            }
            throw FileIOError(path: joinPath(rootPath, parent + "/" + name), operation: "create folder", code: EEXIST)
        }

        func closeAll() {
            for fd in open.values { closeDescriptor(fd) }
        }
    }
}

import JobrunCore
import JobrunSystem

/// What `ExtraFileScanner` found.
public struct ExtraFileScan: Sendable, Hashable {
    /// Relative paths of entries no expectation names (files, symbolic links, FIFOs, …;
    /// never a directory itself), sorted by their UTF-8 bytes.
    public var extraPaths: [String]
    /// Relative paths of jobrun's own working files (``WorkingFileName``) of the expected files,
    /// sorted like `extraPaths`: no manifest can name such a file. One that would belong to a
    /// file no expectation names is among `extraPaths`.
    public var workingPaths: [String]
    /// Directories that could not be listed, sorted by path. Their contents are unknown.
    public var errors: [FileIOError]

    public init(extraPaths: [String] = [], workingPaths: [String] = [], errors: [FileIOError] = []) {
        self.extraPaths = extraPaths
        self.workingPaths = workingPaths
        self.errors = errors
    }
}

/// Finds entries in an output tree that no expectation names: leftovers such as `*.part`
/// files, stale slices, or symbolic links someone put there.
///
/// The walk never follows a symbolic link: a link (to a directory or not) is an entry, and is
/// extra unless an expectation names its path. A directory is descended into, never reported
/// itself, so an unexpected directory shows up as the files inside it (and an empty one not
/// at all). The mirror state's folder at the top of a root (`.jobrun/`) is left out, and jobrun's
/// working files are found apart from the others.
public struct ExtraFileScanner: Sendable {
    public init() {}

    /// Walks `directories` (relative to `root`, `""` for the root itself; a missing one is
    /// skipped) and returns every entry beneath them whose relative path is not in `expected`.
    public func scan(root: String, directories: [String], expected: Set<String>) -> ExtraFileScan {
        var walk = Walk(rootPath: root, expected: expected)
        let rootFD: Int32
        switch PathBeneath.openRoot(root, for: .lookup) {
        case .descriptor(let fd):
            rootFD = fd
        case .failed(.missing, _):
            return ExtraFileScan()  // no root, nothing extra (the checker reports the files missing)
        case .failed(.ioError(_, let code, _), _):
            return ExtraFileScan(errors: [FileIOError(path: root, operation: "open", code: code)])
        case .failed:
            return ExtraFileScan(errors: [FileIOError(path: root, operation: "open", code: ENOTDIR)])
        }
        defer { closeDescriptor(rootFD) }
        for directory in Self.outermost(directories) {
            guard let components = PathBeneath.components(ofDirectory: directory[...]) else {
                walk.errors.append(FileIOError(path: joinPath(root, directory), operation: "scan", code: EINVAL))
                continue
            }
            let relative = components.joined(separator: "/")
            switch PathBeneath.openDirectory(components, beneath: rootFD, rootPath: root, for: .listing) {
            case .descriptor(let fd):
                walk.list(fd, relativePath: relative)
            case .failed(.missing, _):
                continue
            case .failed(.notRegularFile, let depth):
                // A symlink or file where a directory should be is itself an unexpected entry.
                walk.report(components[..<depth].joined(separator: "/"))
            case .failed(.ioError(_, let code, _), let depth):
                walk.errors.append(
                    FileIOError(
                        path: joinPath(root, components[..<depth].joined(separator: "/")), operation: "open", code: code))
            case .failed:
                continue
            }
        }
        let extras = walk.extras.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let working = walk.working.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let errors = walk.errors.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        return ExtraFileScan(extraPaths: extras, workingPaths: working, errors: errors)
    }

    /// `directories` without those inside another one of them (they would be walked twice).
    static func outermost(_ directories: [String]) -> [String] {
        let normalized = Set(
            directories.map { directory in
                (PathBeneath.components(ofDirectory: directory[...]) ?? []).joined(separator: "/")
            })
        let invalid = directories.filter { PathBeneath.components(ofDirectory: $0[...]) == nil }
        if normalized.contains("") && invalid.isEmpty { return [""] }
        let kept = normalized.filter { directory in
            !normalized.contains { other in
                other != directory && (other.isEmpty || directory.hasPrefix(other + "/"))
            }
        }
        return kept.sorted() + invalid
    }

    private struct Walk {
        let rootPath: String
        let expected: Set<String>
        var extras: Set<String> = []
        var working: Set<String> = []
        var errors: [FileIOError] = []

        init(rootPath: String, expected: Set<String>) {
            self.rootPath = rootPath
            self.expected = expected
        }

        /// `isRegularFile`: a working file is one; a link or anything else of its name is not jobrun's.
        mutating func report(_ relativePath: String, isRegularFile: Bool = false) {
            guard !expected.contains(relativePath) else { return }
            let (folder, name) = SlashPath.split(relativePath)
            // Only a slice the manifests name has working files: any other is someone else's.
            if isRegularFile, let owner = WorkingFileName.fileName(ofWorkingFile: String(name)),
                expected.contains(folder.isEmpty ? owner : folder + "/" + owner)
            {
                working.insert(relativePath)
            } else {
                extras.insert(relativePath)
            }
        }

        /// Lists the directory open on `fd` (taking ownership of it) and everything below it.
        mutating func list(_ fd: Int32, relativePath: String) {
            guard let stream = fdopendir(fd) else {
                errors.append(FileIOError(path: joinPath(rootPath, relativePath), operation: "fdopendir", code: errno))
                closeDescriptor(fd)
                return
            }
            defer { closedir(stream) }
            var subdirectories: [String] = []
            while true {
                errno = 0
                guard let entry = readdir(stream) else {
                    if errno != 0 {
                        errors.append(FileIOError(path: joinPath(rootPath, relativePath), operation: "readdir", code: errno))
                    }
                    break
                }
                let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                    String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name == "." || name == ".." { continue }
                let child = relativePath.isEmpty ? name : relativePath + "/" + name
                let type = entryType(entry.pointee.d_type, name: name, in: fd)
                if type == UInt8(DT_DIR) {
                    // The root's mirror state is jobrun's own folder, not the mirror's.
                    if relativePath.isEmpty && name == MirrorStateFolder.name { continue }
                    subdirectories.append(name)
                } else {
                    report(child, isRegularFile: type == UInt8(DT_REG))
                }
            }
            for name in subdirectories {
                let child = relativePath.isEmpty ? name : relativePath + "/" + name
                let childFD = retryingOnInterrupt { openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
                if childFD >= 0 {
                    list(childFD, relativePath: child)
                } else if errno == ELOOP || errno == ENOTDIR {
                    report(child)  // replaced by a symlink or file since readdir
                } else if errno != ENOENT {
                    errors.append(FileIOError(path: joinPath(rootPath, child), operation: "open", code: errno))
                }
            }
        }

        /// A directory entry's type (`DT_DIR`, `DT_REG`, `DT_LNK`, …; a symlink is never its
        /// target). Falls back to one `fstatat` for file systems that do not fill in `d_type`.
        private func entryType(_ type: UInt8, name: String, in fd: Int32) -> UInt8 {
            guard type == UInt8(DT_UNKNOWN) else { return type }
            var status = stat()
            guard fstatat(fd, name, &status, AT_SYMLINK_NOFOLLOW) == 0 else { return type }
            return UInt8(truncatingIfNeeded: (status.st_mode & S_IFMT) >> 12)
        }
    }
}

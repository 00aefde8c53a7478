public import JobrunCore
public import JobrunSystem

/// What one file beneath an output root should be.
public struct FileExpectation: Sendable, Hashable {
    /// The output root directory. Symbolic links in the root itself are followed: the user chose it.
    public var root: String
    /// The path beneath `root`, already validated: relative, `/`-separated, no `..`.
    /// No symbolic link is followed anywhere in it.
    public var relativePath: String
    /// The expected size in bytes, if known. A different size is reported without hashing.
    public var size: Int64?
    /// The expected digests. All are checked, in one pass over the file.
    public var digests: [Digest]
    /// Algorithms to compute besides those of ``digests``, in the same pass, checked against
    /// nothing (`--record-sums` pins a file that declares no SHA-256 this way).
    public var computes: [DigestAlgorithm]
    /// The file's identity when its bytes were last proven to match ``size`` and ``digests``
    /// (the mirror state's record): a file that still has it passes without being read. Only
    /// taken when nothing is to be computed (``computes`` is empty).
    public var proven: FileIdentity?

    public init(
        root: String, relativePath: String, size: Int64? = nil, digests: [Digest] = [], computes: [DigestAlgorithm] = [],
        proven: FileIdentity? = nil
    ) {
        self.root = root
        self.relativePath = relativePath
        self.size = size
        self.digests = digests
        self.computes = computes
        self.proven = proven
    }

    /// Whether checking the file means reading it.
    public var isHashed: Bool { !digests.isEmpty || !computes.isEmpty }

    /// `root` and `relativePath` joined, as messages show the file.
    public var path: String { joinPath(root, relativePath) }
}

/// What a file beneath an output root turned out to be.
public enum FileCheck: Sendable, Hashable {
    /// What a path needs at a name: the file itself, or a folder on the way to it.
    public enum Needed: String, Sendable, Hashable {
        case file = "a regular file"
        case folder = "a folder"
    }

    /// `'m/a' is a regular file, not a folder`: what a ``notRegularFile`` check found, and what was
    /// needed there instead; `nil` for any other check.
    public var wrongKindText: String? {
        guard case .notRegularFile(let path, let kind, let needed) = self else { return nil }
        return "'\(path)' is a \(kind), not \(needed.rawValue)"
    }

    /// A regular file of the expected size whose digests all match. `digests` are the ones
    /// computed: one per expected or ``FileExpectation/computes`` algorithm, in algorithm order
    /// (none when there was none).
    case ok(size: Int64, digests: [Digest])
    /// The file, or a directory above it, does not exist.
    case missing
    /// The size differs from the expected one. The file was not hashed.
    case sizeMismatch(expected: Int64, actual: Int64)
    /// The first expected digest, in algorithm order, that the content does not match, and the
    /// content's digest for every expected algorithm (algorithm order): a report shows them all.
    case digestMismatch(expected: Digest, actual: [Digest], size: Int64)
    /// `path` (the file, or a directory component above it) is not what the path needs:
    /// a symbolic link anywhere, a non-directory where a directory is needed, or a file that
    /// is not regular. `kind` names what it is: "symbolic link", "directory", "FIFO", …;
    /// `needed` what the path needs there (a folder for a component above the file).
    case notRegularFile(path: String, kind: String, needed: Needed = .file)
    /// A system call failed: permission denied, I/O error, an invalid relative path (EINVAL),
    /// an algorithm the linked OpenSSL lacks (EOPNOTSUPP).
    case ioError(path: String, errno: Int32, message: String)

    /// Whether the file is present and correct.
    public var isOK: Bool {
        if case .ok = self { return true }
        return false
    }
}

extension FileCheck {
    static func ioError(_ error: FileIOError) -> FileCheck {
        .ioError(path: error.path, errno: error.code, message: error.message)
    }
}

/// `base/relative`, without doubling a slash `base` already ends with, and without a
/// leading `./` when `base` is the current directory.
func joinPath(_ base: String, _ relative: some StringProtocol) -> String {
    if relative.isEmpty { return base }
    if base.isEmpty || base == "." { return String(relative) }
    return base.hasSuffix("/") ? base + relative : base + "/" + relative
}

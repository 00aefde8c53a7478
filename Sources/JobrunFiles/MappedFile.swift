public import JobrunCore
public import JobrunSystem

/// A regular file mapped read-only into memory, for hashing without copying.
///
/// The kernel is told the file is read front to back (`MADV_SEQUENTIAL`), and `forEachChunk`
/// drops each chunk's pages from this process once it has been handed out (`MADV_DONTNEED`),
/// so resident memory stays near one chunk even for a file of many GiB. The data stays in
/// the page cache; only this mapping forgets it. An empty file is not mapped at all
/// (`mmap` refuses a length of zero).
///
/// If another process truncates the file while it is mapped, the vanished pages read as zeros
/// instead of raising SIGBUS (see `MappingGuard`) and ``hasShrunk`` turns true: check it after
/// reading with ``withUnsafeBytes`` or ``forEachChunk`` (the latter stops at the chunk where it
/// happened); ``digests(_:)`` checks it itself and returns `nil`.
public final class MappedFile {
    /// The file's size in bytes when it was mapped.
    public let count: Int
    /// The path the file was opened by, for messages.
    public let path: String
    private let base: UnsafeMutableRawPointer?
    /// The mapping's slot in `MappingGuard`.
    private let guardSlot: Int?

    /// Part of the file vanished (it was truncated) while the mapping was read: what was read
    /// past the new end were zeros, not the file.
    public var hasShrunk: Bool { guardSlot.map(MappingGuard.hasFaulted) ?? false }

    /// Bytes handed to `forEachChunk`'s body at a time by default: large enough that the
    /// `madvise` calls cost nothing, small enough that resident memory stays flat.
    public static let defaultChunkSize = 8 << 20

    /// Opens and maps the regular file at `path` (symbolic links are followed, as `sha256sum`
    /// does; `FileChecker` is the tool that refuses them).
    public convenience init(path: String) throws(FileIOError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { throw FileIOError(path: path, operation: "open", code: errno) }
        defer { closeDescriptor(fd) }
        try self.init(fileDescriptor: fd, path: path)
    }

    /// Maps the regular file open on `fd`. The mapping does not keep `fd`: close it when you like.
    public convenience init(fileDescriptor fd: Int32, path: String) throws(FileIOError) {
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw FileIOError(path: path, operation: "fstat", code: errno) }
        guard FileStatus.isRegularFile(mode: status.st_mode) else {
            // mmap would say ENODEV for a FIFO or socket; say what the file is instead.
            throw FileIOError(path: path, operation: "map \(fileKindName(status.st_mode))", code: ENODEV)
        }
        try self.init(fileDescriptor: fd, count: Int(status.st_size), path: path)
    }

    /// Maps the first `count` bytes of the regular file on `fd`, whose size the caller has
    /// just taken from `fstat`.
    init(fileDescriptor fd: Int32, count: Int, path: String) throws(FileIOError) {
        self.count = count
        self.path = path
        guard count > 0 else {
            base = nil
            guardSlot = nil
            return
        }
        guard let mapped = mmap(nil, count, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else {
            throw FileIOError(path: path, operation: "mmap", code: errno)
        }
        guard let slot = MappingGuard.register(start: mapped, count: count) else {
            // Unguarded, a truncation by someone else would kill the process: refuse instead.
            _ = munmap(mapped, count)
            throw FileIOError(path: path, operation: "guard the mapping of", code: EMFILE)
        }
        // Advice only: a kernel that ignores it still serves the reads.
        _ = madvise(mapped, count, MADV_SEQUENTIAL)
        base = mapped
        guardSlot = slot
    }

    deinit {
        if let guardSlot { MappingGuard.unregister(guardSlot) }
        if let base { _ = munmap(base, count) }
    }

    /// Calls `body` with the whole mapping (empty for an empty file). Nothing is released
    /// behind the reader, so a large file becomes resident as it is read.
    public func withUnsafeBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(UnsafeRawBufferPointer(start: base.map { UnsafeRawPointer($0) }, count: base == nil ? 0 : count))
    }

    /// Calls `body` with consecutive pieces of the file of at most `chunkSize` bytes (rounded
    /// up to whole pages), front to back, releasing each piece's pages once `body` returns.
    /// Nothing is called for an empty file; nothing more once the file has shrunk.
    public func forEachChunk<Failure: Error>(
        size chunkSize: Int = MappedFile.defaultChunkSize,
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Void
    ) throws(Failure) {
        guard let base else { return }
        let page = Self.pageSize
        // MADV_DONTNEED needs page-aligned starts; the mapping starts on a page.
        let step = max(page, (chunkSize + page - 1) / page * page)
        var offset = 0
        while offset < count {
            let length = min(step, count - offset)
            let start = base + offset
            try body(UnsafeRawBufferPointer(start: start, count: length))
            _ = madvise(start, length, MADV_DONTNEED)
            if hasShrunk { return }
            offset += length
        }
    }

    /// Digests of the whole file for `algorithms` (repeats computed once, in algorithm order),
    /// read in one pass with pages released behind the cursor; `nil` when the file shrank while
    /// it was read (``hasShrunk``: what was read past its new end were zeros, not the file).
    public func digests(_ algorithms: some Sequence<DigestAlgorithm>) throws(DigestError) -> [Digest]? {
        let digester = try MultiDigester(algorithms: algorithms)
        feed(digester)
        let digests = digester.finalize()
        return hasShrunk ? nil : digests
    }

    /// Feeds the whole file to `digester`, chunk by chunk.
    func feed(_ digester: MultiDigester) {
        forEachChunk { chunk in digester.update(chunk) }
    }

    static let pageSize: Int = {
        let size = sysconf(Int32(_SC_PAGESIZE))
        return size > 0 ? size : 4096
    }()
}

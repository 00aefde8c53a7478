import JobrunCore
import JobrunFetch
import JobrunPlan
import JobrunFiles
import Synchronization
#if os(Linux)
internal import CLinux
#endif
import JobrunOutcome
import JobrunSystem

/// Receives one attempt's response for one slice: checks the head, takes the body, and enforces
/// the byte cap.
///
/// Two ways to store a body:
/// - **memory**: a body of at most ``ResponseGate/memoryLimit`` bytes (known from the slice's size or the
///   response's Content-Length) is kept in one buffer. When the transfer is complete the
///   ``DiskWorker`` thread (or, once the disk has been full, the driver) hashes it and, only
///   when it verifies, writes it to the partial file (``persist()``). Such slices are never resumed (see `PartialDownload.resumableSize`), so
///   nothing worth keeping is lost when a transfer breaks, and the engine thread spends no
///   system call on them.
/// - **file**: anything larger streams into the partial file as it arrives.
///   - From byte 0, the engine thread hashes each piece just before writing it, while the
///     piece is still in the cache: large transfers are spread over the engine threads, so the
///     hashing is too, and nothing is read back (docs/performance.md has what that saves).
///   - A resumed body (or one that outgrew its Content-Length in memory) must be hashed from
///     the partial file's first byte: every ``progressStep`` bytes the driver is told
///     (``progress``, as it is for every file body) and hashes what is on disk by reading it
///     back (``hash(upTo:)``), so the bytes already there are hashed on another thread than the
///     one receiving the rest.
///
/// Thread use: `receive(head:)`/`receive(body:)` on the engine thread; everything else on the
/// driver thread, either after the transfer's completion or for bytes the engine thread
/// reported as written (the report is posted after the write, through a lock). A memory body's
/// checks and ``persist()`` may instead run on the ``DiskWorker`` thread, which the driver
/// hands the writer to (through a lock) and does not touch until the disk worker reports back; so does
/// every verified body's commit (its rename, its metadata file's removal, the look after the
/// rename), once the writer is closed and in a ``CommitBatch``.
final class SliceWriter: TransferSink, @unchecked Sendable {
    /// How the attempt's response ended up being handled.
    enum Verdict {
        /// The body was accepted (into memory or the partial file, from `startOffset`).
        case body
        /// A redirect to follow.
        case redirect(location: String)
        /// A response we refused; the failure says why.
        case refused(AttemptFailure)
    }

    /// How often (in bytes written) a file-mode body reports progress for hashing.
    static let progressStep: Int64 = 1 << 20
    /// How often (in bytes written) a file-mode body starts writeback (``startWriteback()``).
    static let writebackStep: Int64 = 8 << 20

    let directoryFD: Int32
    let fileName: String
    let displayPath: String
    let identity: String
    /// What a response must be to be taken: the declared size, the byte cap, the partial file
    /// being resumed and what earlier responses said (``ResponseCheck``).
    private let gate: ResponseGate
    private var check: ResponseCheck { gate.check }
    var expectedSize: Int64? { check.expectedSize }
    var cap: Int64 { check.cap }
    var resumeOffset: Int64 { check.resumeOffset }
    /// What earlier responses for this slice said about its file.
    var learned: Representation? { check.learned }
    /// A body continued from a partial file that no validator vouched for: only the digest
    /// proves the two parts one version.
    var isUnvalidatedResume: Bool { startOffset > 0 && check.resumeValidator == nil }
    let shouldKeepMetadata: Bool
    let algorithms: [DigestAlgorithm]
    /// When the attempt began (its transfer's duration is the rate a gate estimates with).
    let startedAt = ContinuousClock.now
    // What the driver keeps of the attempt, on its thread only: the attempt's number (its
    // events name it), the bytes its progress counts as in flight, the response's HTTP version,
    // and once verified, the digests and when.
    var token: UInt64 = 0
    var httpVersion: String?
    var verified: (digests: [Digest], at: ContinuousClock.Instant)?
    /// Called on the engine thread with the bytes now in the partial file (file mode only).
    private let progress: (@Sendable (Int64) -> Void)?
    /// Where memory bodies come from and go back to.
    private let buffers: BodyBufferPool

    // Engine-thread state, read by the driver only after completion (or, for `fd`, after
    // a progress report).
    private(set) var verdict: Verdict?
    private(set) var startOffset: Int64 = 0
    private(set) var written: Int64 = 0
    private(set) var writeFailure: WriteFailure?
    /// The partial file's identity as it was closed: after the rename, the final name must still
    /// name this file (device, inode, size, modification time) for the mirror state to record it.
    private(set) var closedIdentity: FileIdentity?
    /// The length the response declared for the whole file, which the body must reach.
    private(set) var declaredEnd: Int64?
    /// The accepted response's version and length (for the next attempt's checks).
    private(set) var representation: Representation?
    /// The protocol marked where the body ends (Content-Length, chunked coding, an HTTP/2
    /// stream); when only the connection's close did, a cut connection looks like a whole body.
    private(set) var hasDelimitedBody = true
    private var fd: Int32 = -1
    private var buffer: UnsafeMutableRawPointer?
    private var capacity = 0
    private var reported: Int64 = 0
    /// The bytes of the partial file whose writeback has been started.
    private var writebackStarted: Int64 = 0
    /// A file-mode body from byte 0: hashed by the engine thread as it is written.
    private var inlineDigester: MultiDigester?

    // Driver-thread state: the running digest of a file-mode body.
    private var digester: MultiDigester?
    private var hashed: Int64 = 0
    private var readFailure: WriteFailure?

    let partName: String
    /// Derived when needed: most slices never have metadata.
    var metaName: String { PartialDownload.metaName(for: fileName) }
    /// The body is (still) held in memory rather than in the partial file.
    var isInMemory: Bool { buffer != nil }
    /// This attempt may have written a metadata file (or found one to resume from).
    var mayHaveMetadata: Bool { shouldKeepMetadata || resumeOffset > 0 || expectedSize == nil }

    init(
        directoryFD: Int32, fileName: String, displayPath: String, identity: String, expectedSize: Int64?, cap: Int64,
        algorithms: [DigestAlgorithm], resumeOffset: Int64, resumeValidator: Representation.Validator? = nil,
        learned: Representation? = nil, shouldKeepMetadata: Bool,
        progress: (@Sendable (Int64) -> Void)? = nil, buffers: BodyBufferPool = BodyBufferPool(keep: 0)
    ) {
        self.directoryFD = directoryFD
        self.fileName = fileName
        partName = PartialDownload.partName(for: fileName)
        self.displayPath = displayPath
        self.identity = identity
        gate = ResponseGate(
            check: ResponseCheck(resumeOffset: resumeOffset, resumeValidator: resumeValidator, expectedSize: expectedSize, cap: cap, learned: learned),
            keepsMetadata: shouldKeepMetadata, hashes: !algorithms.isEmpty)
        self.algorithms = algorithms
        self.shouldKeepMetadata = shouldKeepMetadata
        self.progress = progress
        self.buffers = buffers
    }

    deinit {
        if fd >= 0 { closeDescriptor(fd) }
        releaseBuffer()
    }

    /// Gives the memory body's buffer back to the pool.
    private func releaseBuffer() {
        if let buffer { buffers.give(buffer, bytes: capacity) }
        buffer = nil
    }

    // MARK: TransferSink

    func receive(head: ResponseHead) -> BodyDisposition {
        let accepted: ResponseCheck.Accepted
        let storage: ResponseGate.Storage
        switch gate.decide(head) {
        case .redirect(let location):
            verdict = .redirect(location: location)
            return .discard(limit: 64 << 10)
        case .status(let failure):
            verdict = .refused(failure)
            return .discard(limit: 64 << 10)
        case .refused(let failure):
            return refuse(failure)
        case .body(let a, let s):
            (accepted, storage) = (a, s)
        }
        let offset = accepted.offset
        declaredEnd = accepted.end
        representation = accepted.representation
        hasDelimitedBody = head.hasDelimitedBody
        startOffset = offset
        written = offset
        writebackStarted = offset
        verdict = .body
        if let size = storage.memory, let memory = buffers.take(Int(max(size, 1))) {
            buffer = memory
            capacity = Int(size)
            return .accept
        }
        do throws(WriteFailure) {
            try openPartial(appending: storage.appends)
            if storage.hashesInline {
                // Unavailable (out of memory): the driver reads the file back instead.
                inlineDigester = try? MultiDigester(algorithms: algorithms)
            }
            if storage.writesMetadata { writeMetadata(head) }
        } catch {
            writeFailure = error
            verdict = nil
            return .reject
        }
        return .accept
    }

    private func refuse(_ failure: AttemptFailure) -> BodyDisposition {
        verdict = .refused(failure)
        return .reject
    }

    func receive(body: UnsafeRawBufferPointer) -> Bool {
        guard let base = body.baseAddress, !body.isEmpty else { return true }
        if written + Int64(body.count) > cap {
            verdict = .refused(
                AttemptFailure(
                    kind: .tooLarge, message: "more than \(cap) bytes received; stopped (wrong Content-Length or an unexpected body)", isTransient: false))
            return false
        }
        if let buffer {
            let used = Int(written)
            if used + body.count <= capacity {
                (buffer + used).copyMemory(from: base, byteCount: body.count)
                written += Int64(body.count)
                return true
            }
            // More than the Content-Length announced (possible only without a declared size):
            // continue in the partial file.
            do throws(WriteFailure) {
                try openPartial(appending: false)
                try writeAll(UnsafeRawBufferPointer(start: buffer, count: used))
            } catch {
                writeFailure = error
                return false
            }
            releaseBuffer()
        }
        guard fd >= 0 else { return false }
        inlineDigester?.update(body)
        do throws(WriteFailure) {
            try writeAll(body)
        } catch {
            writeFailure = error
            return false
        }
        written += Int64(body.count)
        if written - writebackStarted >= Self.writebackStep { startWriteback() }
        // Every file body says how far it got (the run's progress counts the bytes in flight);
        // one read back from disk is also hashed then (``hash(upTo:)``).
        if written - reported >= Self.progressStep, let progress {
            reported = written
            progress(written)
        }
        return true
    }

    /// Starts writing the bytes received since the last call to the disk, without waiting.
    /// The durability point is still the `syncfs` before a resource is recorded complete; this
    /// only lets the disk work while the network does, so that sync finds little left to do
    /// (measured in docs/performance.md). Below the kernel's background writeback threshold
    /// nothing would be written before that sync otherwise. A no-op on tmpfs.
    private func startWriteback() {
        #if os(Linux)
        _ = sync_file_range(fd, .init(writebackStarted), .init(written - writebackStarted), JOBRUN_SYNC_FILE_RANGE_WRITE)
        #endif
        writebackStarted = written
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws(WriteFailure) {
        if let error = DescriptorIO.writeAll(fd, bytes) { throw WriteFailure(path: displayPath, operation: "write", errno: error) }
    }

    // MARK: Files (engine thread)

    /// Opens the partial file for reading back as well as writing (the driver hashes it).
    private func openPartial(appending: Bool) throws(WriteFailure) {
        if appending {
            fd = openat(directoryFD, partName, O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC)
            if fd < 0 { throw WriteFailure(path: displayPath, operation: "open partial file for", errno: errno) }
            // The bytes to continue must be exactly those the request asked the server to skip.
            var st = stat()
            guard fstat(fd, &st) == 0, Int64(st.st_size) == resumeOffset else {
                throw WriteFailure(path: displayPath, operation: "read partial file", errno: EIO)
            }
        } else {
            fd = Self.createExclusive(directoryFD, partName)
            if fd < 0 { throw WriteFailure(path: displayPath, operation: "open partial file for", errno: errno) }
        }
    }

    /// Creates `name` afresh. Never truncates or follows what is there (a stale partial file, or
    /// a link someone planted): an existing name is removed and the creation retried.
    static func createExclusive(_ directoryFD: Int32, _ name: String) -> Int32 {
        let flags = O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC
        var fd = openat(directoryFD, name, flags, 0o666)
        if fd < 0 && errno == EEXIST {
            unlinkat(directoryFD, name, 0)
            fd = openat(directoryFD, name, flags, 0o666)
        }
        return fd
    }

    /// Written without a validator too: a declared digest may resume such a partial, and the
    /// attempt's end removes one nothing can (``PartialDownload/Found/obstacle(identity:expectedSize:hasDigest:)``).
    /// An appended body keeps the partial's own validator, which is all its first bytes had.
    private func writeMetadata(_ head: ResponseHead) {
        let validator = startOffset > 0 ? check.resumeValidator : Representation.validator(of: head)
        let total = expectedSize ?? declaredEnd
        let meta = PartialDownload.Metadata(identity: identity, validator: validator, totalSize: total)
        let bytes = meta.encoded()
        let mfd = openat(directoryFD, metaName, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o666)
        guard mfd >= 0 else { return }
        // A short or failed write leaves metadata that does not decode: the partial is not resumed.
        _ = bytes.withUnsafeBytes { DescriptorIO.writeAll(mfd, $0) }
        closeDescriptor(mfd)
    }

    // MARK: Driver thread

    /// The attempt delivered a whole body to check and store (no failure on either side).
    func hasBodyToCheck(_ result: TransferResult) -> Bool {
        guard writeFailure == nil, result.failure == nil, case .body = verdict else { return false }
        return true
    }

    /// Hashes the partial file's bytes up to `offset` (which the engine thread has written);
    /// nothing to do for a body the engine thread hashes itself.
    func hash(upTo offset: Int64, scratch: UnsafeMutableRawBufferPointer) {
        guard !algorithms.isEmpty, inlineDigester == nil, fd >= 0, readFailure == nil, offset > hashed else { return }
        if digester == nil {
            do {
                digester = try MultiDigester(algorithms: algorithms)
            } catch {
                readFailure = WriteFailure(path: displayPath, operation: "hash", errno: ENOMEM)
                return
            }
        }
        guard let digester, let base = scratch.baseAddress else { return }
        while hashed < offset {
            let want = Int(min(Int64(scratch.count), offset - hashed))
            let n = pread(fd, base, want, off_t(hashed))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                readFailure = WriteFailure(path: displayPath, operation: "read back", errno: n < 0 ? errno : EIO)
                return
            }
            digester.update(UnsafeRawBufferPointer(start: base, count: n))
            hashed += Int64(n)
        }
    }

    /// The digests of the whole body (after the transfer completed): of the buffer in memory
    /// mode, of the bytes written in file mode (from the partial file's first byte when resumed).
    func digests(pool: DigestPool) -> Result<[Digest], WriteFailure> {
        if algorithms.isEmpty { return .success([]) }
        if let buffer {
            return .success(pool.digests(algorithms, of: UnsafeRawBufferPointer(start: buffer, count: Int(written))))
        }
        if let inlineDigester { return .success(inlineDigester.finalize()) }
        hash(upTo: written, scratch: pool.scratch)
        if let readFailure { return .failure(readFailure) }
        guard hashed == written, let digester else {
            return .failure(WriteFailure(path: displayPath, operation: "read back", errno: EIO))
        }
        return .success(digester.finalize())
    }

    /// Memory mode: writes the verified body to a fresh partial file and frees the buffer. File
    /// mode: nothing left to write. Either way the partial file is then closed.
    func persist() -> WriteFailure? {
        defer { close() }
        guard let buffer else { return nil }
        defer { releaseBuffer() }
        fd = Self.createExclusive(directoryFD, partName)
        if fd < 0 { return WriteFailure(path: displayPath, operation: "open partial file for", errno: errno) }
        do throws(WriteFailure) {
            try writeAll(UnsafeRawBufferPointer(start: buffer, count: Int(written)))
        } catch {
            // A small slice is never resumed: its partial file would only take space.
            unlinkat(directoryFD, partName, 0)
            return error
        }
        return nil
    }

    /// Takes the identity of the partial file open as `descriptor`, which the driver
    /// verifies in place of a body this writer received (a complete partial answered with 416).
    func adoptVerifiedFile(_ descriptor: Int32) {
        var status = stat()
        if fstat(descriptor, &status) == 0 { closedIdentity = FileIdentity(status) }
    }

    /// Closes the partial file (kept on disk) and drops a memory body.
    func close() {
        if fd >= 0 {
            var status = stat()
            if fstat(fd, &status) == 0 { closedIdentity = FileIdentity(status) }
            closeDescriptor(fd)
            fd = -1
        }
        releaseBuffer()
    }
}

/// `close(2)`, out of reach of `SliceWriter.close()`'s name.
private func closeDescriptor(_ fd: Int32) { close(fd) }

/// `Content-Range: bytes START-END/TOTAL` (TOTAL may be `*`).
struct ContentRange: Hashable {
    var start: Int64
    var end: Int64
    var total: Int64?

    init?(_ text: String) {
        let t = text.trimmingASCII()
        guard t.hasPrefix("bytes ") else { return nil }
        let rest = t.dropFirst(6)
        let parts = rest.split(separator: "/", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        let span = parts[0].split(separator: "-", maxSplits: 1)
        guard span.count == 2, let s = Int64(decimalDigits: span[0]), let e = Int64(decimalDigits: span[1]), s <= e else { return nil }
        start = s
        end = e
        total = parts[1] == "*" ? nil : Int64(decimalDigits: parts[1])
        if parts[1] != "*" && total == nil { return nil }
    }
}

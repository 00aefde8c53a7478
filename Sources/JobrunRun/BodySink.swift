import JobrunCore
import JobrunFetch
import JobrunFiles
import JobrunOutcome

/// Receives one attempt's response for one slice on the engine thread: carries out the
/// ``ResponseGate``'s decision on the head, takes the body, and enforces the byte cap.
///
/// Two ways to store a body:
/// - **memory**: a body of at most ``ResponseGate/memoryLimit`` bytes (known from the slice's size or the
///   response's Content-Length) is kept in one buffer. When the transfer is complete the
///   ``DiskWorker`` thread (or, once the disk has been full, the driver) hashes it and, only
///   when it verifies, writes it to the partial file (``persist()``). Such slices are never resumed (see `PartialDownload.resumableSize`), so
///   nothing worth keeping is lost when a transfer breaks, and the engine thread spends no
///   system call on them.
/// - **file**: anything larger streams into the ``PartialFile`` as it arrives.
///   - From byte 0, the engine thread hashes each piece just before writing it, while the
///     piece is still in the cache: large transfers are spread over the engine threads, so the
///     hashing is too, and nothing is read back (docs/performance.md has what that saves).
///   - A resumed body (or one that outgrew its Content-Length in memory) must be hashed from
///     the partial file's first byte: every ``progressStep`` bytes the driver is told
///     (``progress``, as it is for every file body, though only these need it) and hashes what
///     is on disk by reading it back (``hash(upTo:scratch:)``), so the bytes already there are hashed on another thread than the
///     one receiving the rest.
///
/// Thread use: `receive(head:)`/`receive(body:)` on the engine thread; everything else on the
/// driver thread, either after the transfer's completion or for bytes the engine thread
/// reported as written (the report is posted after the write, through a lock). A memory body's
/// checks and ``persist()`` may instead run on the ``DiskWorker`` thread, which the driver
/// hands the sink to (through a lock) and does not touch until the disk worker reports back.
/// The sink keeps nothing of the driver's: the driver tells its attempts apart by the sink's
/// identity, and a verified body goes on as a ``VerifiedBody``.
final class BodySink: TransferSink, @unchecked Sendable {
    /// How often (in bytes written) a file-mode body reports progress for hashing.
    static let progressStep = ByteCount(1 << 20)
    /// How often (in bytes written) a file-mode body starts writeback (``PartialFile/startWriteback(from:count:)``).
    static let writebackStep = ByteCount(8 << 20)

    /// What a response must be to be taken: the declared size, the byte cap, the partial file
    /// being resumed and what earlier responses said (``ResponseCheck``).
    private let gate: ResponseGate
    private var check: ResponseCheck { gate.check }
    var expectedSize: ByteCount? { check.expectedSize }
    var cap: ByteCount { check.cap }
    var resumeOffset: ByteCount { check.resumeOffset }
    /// What earlier responses for this slice said about its file.
    var learned: Representation? { check.learned }
    /// A body continued from a partial file that no validator vouched for: only the digest
    /// proves the two parts one version.
    var isUnvalidatedResume: Bool { startOffset > .zero && check.resumeValidator == nil }
    let algorithms: [DigestAlgorithm]
    /// When the attempt's request went (the offline pause compares it with when the network
    /// went), and how many were in flight at its origin then (an overload speaks of those).
    let sent: RequestSent
    /// Called on the engine thread with this sink and the bytes now in the partial file (file mode only).
    private let progress: (@Sendable (BodySink, ByteCount) -> Void)?
    /// Where memory bodies come from and go back to.
    private let buffers: BodyBufferPool

    // Engine-thread state, read by the driver only after completion (or, for the file, after
    // a progress report).
    private(set) var file: PartialFile
    private(set) var verdict: ResponseVerdict?
    private(set) var startOffset: ByteCount = 0
    private(set) var written: ByteCount = 0
    private(set) var writeFailure: WriteFailure?
    /// The length the response declared for the whole file, which the body must reach.
    private(set) var declaredEnd: ByteCount?
    /// The accepted response's version and length (for the next attempt's checks).
    private(set) var representation: Representation?
    /// The accepted response's ETag and Last-Modified, as the mirror state records them (only
    /// for a slice without a digest: only such a slice is ever revalidated).
    private(set) var validators = OriginValidators()
    private let keepsValidators: Bool
    /// The protocol marked where the body ends (Content-Length, chunked coding, an HTTP/2
    /// stream); when only the connection's close did, a cut connection looks like a whole body.
    private(set) var hasDelimitedBody = true
    private var buffer: UnsafeMutableRawPointer?
    private var capacity = 0
    private var reported: ByteCount = 0
    /// The bytes of the partial file whose writeback has been started.
    private var writebackStarted: ByteCount = 0
    /// A file-mode body from byte 0: hashed by the engine thread as it is written.
    private var inlineDigester: MultiDigester?

    // Driver-thread state: the running digest of a file-mode body read back.
    private var digester: MultiDigester?
    private var hashed: ByteCount = 0
    private var readFailure: WriteFailure?

    /// The body is (still) held in memory rather than in the partial file.
    var isInMemory: Bool { buffer != nil }

    init(
        file: PartialFile, check: ResponseCheck, algorithms: [DigestAlgorithm], keepsMetadata: Bool, sent: RequestSent,
        progress: (@Sendable (BodySink, ByteCount) -> Void)? = nil, buffers: BodyBufferPool = BodyBufferPool(keep: 0), keepsValidators: Bool = false
    ) {
        self.file = file
        self.keepsValidators = keepsValidators
        self.file.mayHaveMetadata = keepsMetadata || check.resumeOffset > .zero || check.expectedSize == nil
        gate = ResponseGate(check: check, keepsMetadata: keepsMetadata, hashes: !algorithms.isEmpty)
        self.algorithms = algorithms
        self.sent = sent
        self.progress = progress
        self.buffers = buffers
    }

    deinit {
        file.close()
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
            verdict = .refused(failure)
            return .reject
        case .notModified(let validators):
            verdict = .notModified(validators)
            return .discard(limit: 64 << 10)
        case .body(let a, let s):
            (accepted, storage) = (a, s)
        }
        if keepsValidators { validators = ResponseGate.validators(of: head) }
        let offset = accepted.offset
        declaredEnd = accepted.end
        representation = accepted.representation
        hasDelimitedBody = head.hasDelimitedBody
        startOffset = offset
        written = offset
        writebackStarted = offset
        verdict = .body
        if let size = storage.memory, let memory = buffers.take(max(size.int, 1)) {
            buffer = memory
            capacity = size.int
            return .accept
        }
        do throws(WriteFailure) {
            if storage.appends { try file.continueAppending(expecting: resumeOffset) } else { try file.create() }
            if storage.hashesInline {
                // Unavailable (out of memory): the driver reads the file back instead.
                inlineDigester = try? MultiDigester(algorithms: algorithms)
            }
            if storage.writesMetadata {
                // Written without a validator too: a declared digest may resume such a partial,
                // and the attempt's end removes one nothing can. An appended body keeps the
                // partial's own validator, which is all its first bytes had.
                let validator = offset > 0 ? check.resumeValidator : Representation.validator(of: head)
                file.writeMetadata(PartialDownload.Metadata(identity: file.identity, validator: validator, totalSize: (expectedSize ?? declaredEnd)?.value))
            }
        } catch {
            writeFailure = error
            verdict = nil
            return .reject
        }
        return .accept
    }

    func receive(body: UnsafeRawBufferPointer) -> Bool {
        guard let base = body.baseAddress, !body.isEmpty else { return true }
        if written + ByteCount(body.count) > cap {
            verdict = .refused(
                AttemptFailure(
                    kind: .tooLarge, message: "more than \(cap.value) bytes received; stopped (wrong Content-Length or an unexpected body)", isTransient: false)
            )
            return false
        }
        if let buffer {
            let used = written.int
            if used + body.count <= capacity {
                (buffer + used).copyMemory(from: base, byteCount: body.count)
                written += ByteCount(body.count)
                return true
            }
            // More than the Content-Length announced (possible only without a declared size):
            // continue in the partial file.
            do throws(WriteFailure) {
                try file.create()
                try file.write(UnsafeRawBufferPointer(start: buffer, count: used))
            } catch {
                writeFailure = error
                return false
            }
            releaseBuffer()
        }
        guard file.isOpen else { return false }
        inlineDigester?.update(body)
        do throws(WriteFailure) {
            try file.write(body)
        } catch {
            writeFailure = error
            return false
        }
        written += ByteCount(body.count)
        if written - writebackStarted >= Self.writebackStep {
            // Below the kernel's background writeback threshold nothing would reach the disk
            // before the resource's sync otherwise.
            file.startWriteback(from: writebackStarted, count: written - writebackStarted)
            writebackStarted = written
        }
        // Every file body says how far it got; one read back from disk is hashed then
        // (``hash(upTo:scratch:)``).
        if written - reported >= Self.progressStep, let progress {
            reported = written
            progress(self, written)
        }
        return true
    }

    // MARK: Driver thread

    /// The attempt delivered a whole body to check and store (no failure on either side).
    func hasBodyToCheck(_ result: TransferResult) -> Bool {
        guard writeFailure == nil, result.failure == nil, case .body = verdict else { return false }
        return true
    }

    /// Hashes the partial file's bytes up to `offset` (which the engine thread has written);
    /// nothing to do for a body the engine thread hashes itself.
    func hash(upTo offset: ByteCount, scratch: UnsafeMutableRawBufferPointer) {
        guard !algorithms.isEmpty, inlineDigester == nil, file.isOpen, readFailure == nil, offset > hashed else { return }
        if digester == nil {
            do {
                digester = try MultiDigester(algorithms: algorithms)
            } catch {
                readFailure = WriteFailure(path: file.displayPath, operation: "hash", errno: ENOMEM)
                return
            }
        }
        guard let digester, let base = scratch.baseAddress else { return }
        while hashed < offset {
            let n = file.read(into: base, count: min(ByteCount(scratch.count), offset - hashed).int, at: hashed)
            guard n > 0 else {
                readFailure = WriteFailure(path: file.displayPath, operation: "read back", errno: n < 0 ? Int32(-n) : EIO)
                return
            }
            digester.update(UnsafeRawBufferPointer(start: base, count: n))
            hashed += ByteCount(n)
        }
    }

    /// The digests of the whole body (after the transfer completed): of the buffer in memory
    /// mode, of the bytes written in file mode (from the partial file's first byte when resumed).
    func digests(pool: DigestPool) -> Result<[Digest], WriteFailure> {
        if algorithms.isEmpty { return .success([]) }
        if let buffer {
            return .success(pool.digests(algorithms, of: UnsafeRawBufferPointer(start: buffer, count: written.int)))
        }
        if let inlineDigester { return .success(inlineDigester.finalize()) }
        hash(upTo: written, scratch: pool.scratch)
        if let readFailure { return .failure(readFailure) }
        guard hashed == written, let digester else {
            return .failure(WriteFailure(path: file.displayPath, operation: "read back", errno: EIO))
        }
        return .success(digester.finalize())
    }

    /// Memory mode: writes the verified body to a fresh partial file and frees the buffer. File
    /// mode: nothing left to write. Either way the partial file is then closed.
    func persist() -> WriteFailure? {
        defer { close() }
        guard let buffer else { return nil }
        defer { releaseBuffer() }
        do throws(WriteFailure) {
            try file.create()
            try file.write(UnsafeRawBufferPointer(start: buffer, count: written.int))
        } catch {
            // A small slice is never resumed: its partial file would only take space.
            if file.isOpen { file.removeData() }
            return error
        }
        return nil
    }

    /// Takes the identity of the partial file open as `descriptor`, which the driver
    /// verifies in place of a body this sink received (a complete partial answered with 416).
    func adoptVerifiedFile(_ descriptor: Int32) {
        file.adopt(descriptor)
    }

    /// Closes the partial file (kept on disk) and drops a memory body.
    func close() {
        file.close()
        releaseBuffer()
    }
}

import Foundation
import JobrunCore
import JobrunFetch
import JobrunPlan
import JobrunVerify
import Synchronization

/// Receives one attempt's response for one slice: checks the head, streams the body into the
/// partial file while hashing it, and enforces the byte cap. Called on the engine thread; the
/// coordinator reads the outcome after the transfer's completion.
final class SliceWriter: TransferSink, @unchecked Sendable {
    /// How the attempt's response ended up being handled.
    enum Verdict {
        /// The body went into the partial file (from `startOffset`).
        case body
        /// A redirect to follow.
        case redirect(location: String)
        /// A response we refused; the failure says why.
        case refused(AttemptFailure)
    }

    let directoryFD: Int32
    let fileName: String
    let displayPath: String
    let identity: String
    let expectedSize: Int64?
    let cap: Int64
    let resumeOffset: Int64
    let shouldKeepMetadata: Bool

    // Engine-thread state, read by the coordinator only after completion.
    private(set) var verdict: Verdict?
    private(set) var startOffset: Int64 = 0
    private(set) var written: Int64 = 0
    private(set) var writeFailure: WriteFailure?
    private(set) var head: ResponseHead?
    private var fd: Int32 = -1
    private var digester: MultiDigester?
    private let algorithms: [DigestAlgorithm]

    var partName: String { PartialDownload.partName(for: fileName) }
    var metaName: String { PartialDownload.metaName(for: fileName) }

    init(directoryFD: Int32, fileName: String, displayPath: String, identity: String, expectedSize: Int64?, cap: Int64,
         algorithms: [DigestAlgorithm], resumeOffset: Int64, shouldKeepMetadata: Bool) {
        self.directoryFD = directoryFD
        self.fileName = fileName
        self.displayPath = displayPath
        self.identity = identity
        self.expectedSize = expectedSize
        self.cap = cap
        self.algorithms = algorithms
        self.resumeOffset = resumeOffset
        self.shouldKeepMetadata = shouldKeepMetadata
    }

    deinit { if fd >= 0 { close(fd) } }

    // MARK: TransferSink

    func receive(head: ResponseHead) -> BodyDisposition {
        self.head = head
        let status = head.status
        if (300...399).contains(status), let location = head.value("location") {
            verdict = .redirect(location: location)
            return .discard(limit: 64 << 10)
        }
        guard status == 200 || status == 206 else {
            verdict = .refused(AttemptFailure(
                kind: .http, status: status, message: "HTTP \(status)",
                isTransient: AttemptFailure.isTransient(status: status), coolsDownHost: status == 429 || status == 503))
            return .discard(limit: 64 << 10)
        }
        if let encoding = head.value("content-encoding"), encoding.lowercased() != "identity" {
            return refuse(AttemptFailure(kind: .contentEncoding, message: "the server sent Content-Encoding: \(encoding), which jobrun did not ask for (digests are over the stored bytes)", isTransient: false))
        }
        var offset: Int64 = 0
        if status == 206 {
            // Append only when the range starts exactly where the partial ends.
            guard resumeOffset > 0, let range = head.value("content-range").flatMap(ContentRange.init), range.start == resumeOffset else {
                return refuse(AttemptFailure(kind: .rangeMismatch, message: "206 response does not continue the partial file at byte \(resumeOffset)", isTransient: true))
            }
            if let total = range.total, let expectedSize, total != expectedSize {
                return refuse(AttemptFailure(kind: .sizeMismatch, message: "the server's file is \(total) bytes, expected \(expectedSize)", isTransient: false))
            }
            offset = resumeOffset
        } else if let length = head.value("content-length").flatMap({ Int64($0) }) {
            if let expectedSize, length != expectedSize {
                return refuse(AttemptFailure(kind: .sizeMismatch, message: "the server's file is \(length) bytes, expected \(expectedSize)", isTransient: false))
            }
            if length > cap {
                return refuse(AttemptFailure(kind: .tooLarge, message: "the server's file is \(length) bytes, over the \(cap)-byte limit", isTransient: false))
            }
        }
        do throws(WriteFailure) {
            try openPartial(appending: offset > 0)
            if offset > 0 { try rehashPartial(upTo: offset) }
            if shouldKeepMetadata || (expectedSize == nil && (head.value("content-length").flatMap { Int64($0) } ?? 0) >= PartialDownload.resumableSize) {
                writeMetadata(head)
            }
        } catch {
            writeFailure = error
            return .reject
        }
        startOffset = offset
        written = offset
        verdict = .body
        return .accept
    }

    private func refuse(_ failure: AttemptFailure) -> BodyDisposition {
        verdict = .refused(failure)
        return .reject
    }

    func receive(body: UnsafeRawBufferPointer) -> Bool {
        guard fd >= 0 else { return false }
        if written + Int64(body.count) > cap {
            verdict = .refused(AttemptFailure(kind: .tooLarge, message: "more than \(cap) bytes received; stopped (wrong Content-Length or an unexpected body)", isTransient: false))
            return false
        }
        var offset = 0
        while offset < body.count {
            guard let base = body.baseAddress else { return false }
            let n = write(fd, base + offset, body.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                writeFailure = WriteFailure(path: displayPath, operation: "write", errno: errno)
                return false
            }
            offset += n
        }
        digester?.update(body)
        written += Int64(body.count)
        return true
    }

    // MARK: Files

    private func openPartial(appending: Bool) throws(WriteFailure) {
        if appending {
            fd = openat(directoryFD, partName, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC)
        } else {
            // Never truncate through a link someone planted: remove the name, then create it exclusively.
            unlinkat(directoryFD, partName, 0)
            fd = openat(directoryFD, partName, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
        }
        if fd < 0 { throw WriteFailure(path: displayPath, operation: "open partial file for", errno: errno) }
        if !algorithms.isEmpty { digester = try? MultiDigester(algorithms: algorithms) }
    }

    /// A resumed body continues the digest of the bytes already on disk.
    private func rehashPartial(upTo offset: Int64) throws(WriteFailure) {
        guard let digester else { return }
        let readFD = openat(directoryFD, partName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        if readFD < 0 { throw WriteFailure(path: displayPath, operation: "read partial file", errno: errno) }
        defer { close(readFD) }
        // Mapped and walked in chunks whose pages are released behind the cursor: a multi-GB
        // partial file costs neither a copy nor resident memory.
        let mapped: MappedFile
        do {
            mapped = try MappedFile(fileDescriptor: readFD, path: displayPath)
        } catch {
            throw WriteFailure(path: displayPath, operation: "map partial file", errno: error.code)
        }
        guard Int64(mapped.count) == offset else { throw WriteFailure(path: displayPath, operation: "read partial file", errno: EIO) }
        mapped.forEachChunk { digester.update($0) }
    }

    private func writeMetadata(_ head: ResponseHead) {
        var validator: (String, PartialDownload.Metadata.ValidatorKind)?
        if let etag = head.value("etag"), !etag.hasPrefix("W/") {
            validator = (etag, .etag)
        } else if let modified = head.value("last-modified") {
            validator = (modified, .lastModified)
        }
        guard let (value, kind) = validator else {
            unlinkat(directoryFD, metaName, 0)
            return
        }
        var total = expectedSize
        if total == nil, head.status == 200 { total = head.value("content-length").flatMap { Int64($0) } }
        let meta = PartialDownload.Metadata(identity: identity, validator: value, validatorKind: kind, totalSize: total)
        let bytes = meta.encoded()
        let mfd = openat(directoryFD, metaName, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o666)
        guard mfd >= 0 else { return }
        _ = bytes.withUnsafeBytes { write(mfd, $0.baseAddress, $0.count) }
        close(mfd)
    }

    /// Closes the partial file and returns the digests of everything in it.
    func finish() -> [Digest] {
        if fd >= 0 {
            close(fd)
            fd = -1
        }
        return digester?.finalize() ?? []
    }
}

/// `Content-Range: bytes START-END/TOTAL` (TOTAL may be `*`).
struct ContentRange: Hashable {
    var start: Int64
    var end: Int64
    var total: Int64?

    init?(_ text: String) {
        let t = text.trimmingCharacters(in: .whitespaces)
        guard t.hasPrefix("bytes ") else { return nil }
        let rest = t.dropFirst(6)
        let parts = rest.split(separator: "/", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        let span = parts[0].split(separator: "-", maxSplits: 1)
        guard span.count == 2, let s = Int64(span[0]), let e = Int64(span[1]), s <= e else { return nil }
        start = s
        end = e
        total = parts[1] == "*" ? nil : Int64(parts[1])
        if parts[1] != "*" && total == nil { return nil }
    }
}

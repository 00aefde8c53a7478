import JobrunCore
import JobrunFiles
#if os(Linux)
internal import CLinux
#endif
import JobrunSystem

/// A slice's working file and its metadata file (`PartialDownload`'s names) in the slice's folder,
/// for one attempt: created or continued by the engine thread when a body streams to disk, read
/// back by the driver to hash it, written for a verified memory body by the ``DiskWorker`` (or
/// by the driver, once the disk has been full), and renamed into place by a ``CommitBatch``. One thread holds it at a time: the one its
/// ``BodySink`` was handed to. A closed copy is all a commit needs.
struct PartialFile: Sendable {
    let directoryFD: Int32
    /// The final name in the folder.
    let fileName: String
    let partName: String
    /// How the final path is shown in messages.
    let displayPath: String
    /// The slice's identity, which the metadata records so that only this slice resumes it.
    let identity: String
    /// The attempt may have written a metadata file, or found one to resume from (its
    /// ``BodySink`` says, from the response check).
    var mayHaveMetadata = true
    /// Open while a body is written or read back; `-1` otherwise.
    private(set) var descriptor: Int32 = -1
    /// The file's identity as it was closed: after the rename, the final name must still name
    /// this file (device, inode, size, modification time) for the mirror state to record it.
    private(set) var closedIdentity: FileIdentity?

    /// Derived when needed: most slices never have metadata.
    var metaName: String { PartialDownload.metaName(for: fileName) }
    var isOpen: Bool { descriptor >= 0 }

    init(directoryFD: Int32, fileName: String, displayPath: String, identity: String) {
        self.directoryFD = directoryFD
        self.fileName = fileName
        partName = PartialDownload.partName(for: fileName)
        self.displayPath = displayPath
        self.identity = identity
    }

    /// Creates the file afresh, open for reading back as well as writing.
    mutating func create() throws(WriteFailure) {
        descriptor = Self.createExclusive(directoryFD, partName)
        if descriptor < 0 { throw WriteFailure(path: displayPath, operation: "open partial file for", errno: errno) }
    }

    /// Opens the file to continue it: it must hold exactly the `size` bytes the request asked
    /// the server to skip.
    mutating func continueAppending(expecting size: ByteCount) throws(WriteFailure) {
        descriptor = openat(directoryFD, partName, O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC)
        if descriptor < 0 { throw WriteFailure(path: displayPath, operation: "open partial file for", errno: errno) }
        var st = stat()
        guard fstat(descriptor, &st) == 0, Int64(st.st_size) == size.value else {
            closeDescriptor(descriptor)
            descriptor = -1
            throw WriteFailure(path: displayPath, operation: "read partial file", errno: EIO)
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

    func write(_ bytes: UnsafeRawBufferPointer) throws(WriteFailure) {
        if let error = DescriptorIO.writeAll(descriptor, bytes) { throw WriteFailure(path: displayPath, operation: "write", errno: error) }
    }

    /// Starts writing `count` bytes from `offset` to the disk, without waiting. The durability
    /// point is still the `syncfs` before a resource is recorded complete; this only lets the
    /// disk work while the network does, so that sync finds little left to do (measured in
    /// docs/performance.md). A no-op on tmpfs.
    func startWriteback(from offset: ByteCount, count: ByteCount) {
        #if os(Linux)
        _ = sync_file_range(descriptor, .init(offset.value), .init(count.value), JOBRUN_SYNC_FILE_RANGE_WRITE)
        #endif
    }

    /// Reads up to `count` bytes at `offset` into `base`, retrying an interrupted read: the
    /// bytes read, `0` at the end, or the error number (negated).
    func read(into base: UnsafeMutableRawPointer, count: Int, at offset: ByteCount) -> Int {
        while true {
            let n = pread(descriptor, base, count, off_t(offset.value))
            if n >= 0 { return n }
            if errno != EINTR { return -Int(errno) }
        }
    }

    /// Writes the metadata file. A short or failed write leaves metadata that does not decode:
    /// the partial file is then not resumed.
    func writeMetadata(_ metadata: PartialDownload.Metadata) {
        let bytes = metadata.encoded()
        let mfd = openat(directoryFD, metaName, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o666)
        guard mfd >= 0 else { return }
        _ = bytes.withUnsafeBytes { DescriptorIO.writeAll(mfd, $0) }
        closeDescriptor(mfd)
    }

    /// Takes the identity of the file open as `descriptor`, which the driver verified in place
    /// of a body (a complete partial answered with 416).
    mutating func adopt(_ descriptor: Int32) {
        var status = stat()
        if fstat(descriptor, &status) == 0 { closedIdentity = FileIdentity(status) }
    }

    /// Closes the file (kept on disk), noting its identity.
    mutating func close() {
        guard descriptor >= 0 else { return }
        var status = stat()
        if fstat(descriptor, &status) == 0 { closedIdentity = FileIdentity(status) }
        closeDescriptor(descriptor)
        descriptor = -1
    }

    /// Removes the file, keeping its metadata.
    func removeData() {
        unlinkat(directoryFD, partName, 0)
    }

    /// Removes the file and its metadata.
    func discard() {
        unlinkat(directoryFD, partName, 0)
        unlinkat(directoryFD, metaName, 0)
    }
}

/// `close(2)`, out of reach of `PartialFile.close()`'s name.
private func closeDescriptor(_ fd: Int32) { close(fd) }

internal import JobrunCore
import JobrunSystem

/// One thread's share of a `FileChecker` batch, with the digesters and read buffer it reuses
/// from file to file.
final class CheckWorker {
    private var digesters: [Digester?] = Array(repeating: nil, count: DigestAlgorithm.allCases.count)
    private var buffer: UnsafeMutableRawBufferPointer?
    private let usesOpenat2: Bool

    init(usesOpenat2: Bool) {
        self.usesOpenat2 = usesOpenat2
    }

    /// Files up to this size are read into a reused buffer; larger ones are mapped. One
    /// `read` avoids the `mmap`/`munmap` pair, whose TLB shootdowns slow down every other
    /// thread of the process, and costs no more than the page faults of a small mapping.
    static let readBufferSize = 1 << 20

    deinit { buffer?.deallocate() }

    func process(
        _ unit: CheckBatch.Unit, of batch: CheckBatch, expectations: [FileExpectation],
        roots: [PathBeneath.Opened], failures: DirectoryFailures, into results: ResultSlots
    ) {
        let group = batch.groups[unit.group]
        let files = group.files[unit.files]
        func answerAll(_ check: FileCheck) {
            for file in files { results[file] = check }
        }
        let rootFD: Int32
        switch roots[group.root] {
        case .failed(let failure, _): return answerAll(failure)
        case .descriptor(let fd): rootFD = fd
        }
        guard let components = PathBeneath.components(ofDirectory: group.directory) else {
            for file in files { results[file] = Self.invalidPath(expectations[file]) }
            return
        }
        if let known = failures.failure(root: group.root, components: components) { return answerAll(known) }
        let rootPath = batch.rootPaths[group.root]
        switch PathBeneath.openDirectory(
            components, beneath: rootFD, rootPath: rootPath, for: .lookup, tryOpenat2: usesOpenat2)
        {
        case .failed(let failure, let depth):
            failures.record(failure, root: group.root, components: components[..<depth])
            answerAll(failure)
        case .descriptor(let directoryFD):
            defer { closeDescriptor(directoryFD) }
            let observed = results.observations?.baseAddress
            let coarseDevice = observed == nil ? nil : FileStampClock.coarseDevice(ofFolder: directoryFD)
            if let times = results.times {
                for file in files {
                    let started = ContinuousClock.now
                    results[file] = check(expectations[file], in: directoryFD, coarseDevice: coarseDevice, observation: observed.map { $0 + file })
                    let (s, atto) = (ContinuousClock.now - started).components
                    times[file] = Float(s) + Float(atto / 1_000_000_000) / 1e9
                }
            } else {
                for file in files {
                    results[file] = check(expectations[file], in: directoryFD, coarseDevice: coarseDevice, observation: observed.map { $0 + file })
                }
            }
        }
    }

    private static func invalidPath(_ expectation: FileExpectation) -> FileCheck {
        .ioError(
            path: expectation.path, errno: EINVAL,
            message: "relative path must not be absolute, empty, or contain '..'")
    }

    /// Checks the file named by the last component of `expectation.relativePath` in the
    /// already opened `directoryFD`; with `observation`, also says there how a passing file was
    /// proven and what its identity was.
    /// `coarseDevice` is the folder's device when its files are stamped from the coarse clock
    /// (``FileStampClock/coarseDevice(ofFolder:)``): a file on it is judged settled by that clock.
    func check(
        _ expectation: FileExpectation, in directoryFD: Int32, coarseDevice: UInt64? = nil, observation: UnsafeMutablePointer<FileObservation>? = nil
    ) -> FileCheck {
        let name = String(SlashPath.split(expectation.relativePath).name)
        if name.isEmpty || name == "." || name == ".." || expectation.relativePath.utf8.first == UInt8(ascii: "/") {
            return Self.invalidPath(expectation)
        }
        // Read before the stat: an identity counts as seen no later than this.
        let seenAt = observation == nil ? LookTime(wall: 0) : LookTime.now(coarse: coarseDevice != nil)
        // fstatat first: cheaper than open + fstat + close when only the size is checked,
        // and a device node is never opened (opening some has side effects).
        var status = stat()
        if fstatat(directoryFD, name, &status, AT_SYMLINK_NOFOLLOW) != 0 {
            return PathBeneath.diagnose(
                errno, opening: name, in: directoryFD, expecting: .regularFile,
                path: { expectation.path }, operation: "stat")
        }
        guard FileStatus.isRegularFile(mode: status.st_mode) else {
            return .notRegularFile(path: expectation.path, kind: fileKindName(status.st_mode))
        }
        let size = Int64(status.st_size)
        if let expected = expectation.size, expected != size {
            // A file that differs keeps its identity: the plan tells a new version from a change on disk by it.
            observation?.pointee = FileObservation(identity: FileIdentity(status), seenAt: seenAt)
            return .sizeMismatch(expected: expected, actual: size)
        }
        if !expectation.isHashed {
            let file = FileIdentity(status)
            observation?.pointee = FileObservation(proof: .metadata, identity: file, seenAt: seenAt.of(fileOn: file.device, coarseDevice: coarseDevice))
            return .ok(size: size, digests: [])
        }
        if let proven = expectation.proven, expectation.computes.isEmpty, FileIdentity(status) == proven {
            observation?.pointee = FileObservation(
                proof: .recognized, identity: proven, seenAt: seenAt.of(fileOn: proven.device, coarseDevice: coarseDevice))
            return .ok(size: size, digests: expectation.digests.sorted { $0.algorithm < $1.algorithm })
        }

        let fd = retryingOnInterrupt { openat(directoryFD, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) }
        if fd < 0 {
            // Replaced since the fstatat: ELOOP for a symlink, ENOENT if removed.
            return PathBeneath.diagnose(
                errno, opening: name, in: directoryFD, expecting: .regularFile,
                path: { expectation.path })
        }
        defer { closeDescriptor(fd) }
        guard fstat(fd, &status) == 0 else {
            return .ioError(FileIOError(path: expectation.path, operation: "fstat", code: errno))
        }
        guard FileStatus.isRegularFile(mode: status.st_mode) else {
            return .notRegularFile(path: expectation.path, kind: fileKindName(status.st_mode))
        }
        let openedSize = Int64(status.st_size)
        if let expected = expectation.size, expected != openedSize {
            return .sizeMismatch(expected: expected, actual: openedSize)
        }
        let check = hash(fd, size: openedSize, for: expectation)
        if let observation {
            // The finding holds for the identity only if the file did not change while it was read.
            let before = FileIdentity(status)
            let unchanged = fstat(fd, &status) == 0 && FileIdentity(status) == before
            switch check {
            case .ok:
                observation.pointee = FileObservation(
                    proof: .hashed, identity: unchanged ? before : nil, seenAt: seenAt.of(fileOn: before.device, coarseDevice: coarseDevice))
            case .digestMismatch, .sizeMismatch:
                observation.pointee = FileObservation(identity: unchanged ? before : nil, seenAt: seenAt)
            default:
                break
            }
        }
        return check
    }

    /// Hashes the open file and compares with the expected digests: the first mismatch in
    /// algorithm order, with every computed digest.
    private func hash(_ fd: Int32, size: Int64, for expectation: FileExpectation) -> FileCheck {
        var wanted = Set(expectation.digests.map(\.algorithm))
        wanted.formUnion(expectation.computes)
        let algorithms = wanted.sorted()
        let digester: MultiDigester
        do {
            digester = MultiDigester(digesters: try algorithms.map { algorithm throws(DigestError) in try self.digester(for: algorithm) })
        } catch {
            return .ioError(path: expectation.path, errno: EOPNOTSUPP, message: error.description)
        }
        var hashedSize = size
        if size <= Int64(Self.readBufferSize) {
            let buffer = readBuffer()
            var filled = 0
            while filled < Int(size) {
                let count = read(fd, buffer.baseAddress.map { $0 + filled }, Int(size) - filled)
                if count > 0 {
                    filled += count
                } else if count == 0 {
                    break  // truncated since fstat
                } else if errno != EINTR {
                    digester.reset()
                    return .ioError(FileIOError(path: expectation.path, operation: "read", code: errno))
                }
            }
            if filled < Int(size) {
                hashedSize = Int64(filled)
                if let expected = expectation.size {
                    digester.reset()
                    return .sizeMismatch(expected: expected, actual: hashedSize)
                }
            }
            digester.update(UnsafeRawBufferPointer(rebasing: buffer[..<filled]))
        } else {
            do {
                let mapped = try MappedFile(fileDescriptor: fd, count: Int(size), path: expectation.path)
                mapped.feed(digester)
                if mapped.hasShrunk {
                    digester.reset()
                    return .ioError(FileIOError(path: expectation.path, operation: "read (the file shrank while it was being hashed)", code: EIO))
                }
            } catch {
                return .ioError(error)
            }
        }
        let computed = digester.finalize()
        for algorithm in algorithms {
            guard let actual = computed.first(where: { $0.algorithm == algorithm }) else { continue }
            for expected in expectation.digests where expected.algorithm == algorithm && expected != actual {
                return .digestMismatch(expected: expected, actual: computed, size: hashedSize)
            }
        }
        return .ok(size: hashedSize, digests: computed)
    }

    private func digester(for algorithm: DigestAlgorithm) throws(DigestError) -> Digester {
        let slot = DigestAlgorithm.allCases.firstIndex(of: algorithm) ?? 0
        if let existing = digesters[slot] { return existing }
        let created = try Digester(algorithm: algorithm)
        digesters[slot] = created
        return created
    }

    private func readBuffer() -> UnsafeMutableRawBufferPointer {
        if let buffer { return buffer }
        let created = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.readBufferSize, alignment: 4096)
        buffer = created
        return created
    }
}

import JobrunCore
import JobrunFiles

/// Hashing tools of one thread (the driver's, the ``DiskWorker``'s), reused across slices:
/// one ``MultiDigester`` per set of algorithms (a digest context costs allocations and an
/// OpenSSL init per slice otherwise), and one scratch buffer for reading partial files back.
final class DigestPool {
    private var digesters: [[DigestAlgorithm]: MultiDigester] = [:]
    /// Reads of partial files go through this buffer: 256 KiB stays in the CPU's L2 cache until
    /// the digest has read it.
    let scratch: UnsafeMutableRawBufferPointer

    init() {
        scratch = .allocate(byteCount: 256 << 10, alignment: 64)
    }

    deinit { scratch.deallocate() }

    /// The digests of `bytes`, one per distinct algorithm in `DigestAlgorithm` order (as
    /// ``MultiDigester`` reports them). Empty when OpenSSL lacks an algorithm (then no slice
    /// that needs it can verify).
    func digests(_ algorithms: [DigestAlgorithm], of bytes: UnsafeRawBufferPointer) -> [Digest] {
        let digester: MultiDigester
        if let cached = digesters[algorithms] {
            digester = cached
        } else {
            guard let made = try? MultiDigester(algorithms: algorithms) else { return [] }
            digesters[algorithms] = made
            digester = made
        }
        digester.update(bytes)
        return digester.finalize()
    }
}

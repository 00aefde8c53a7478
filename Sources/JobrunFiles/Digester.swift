public import JobrunCore
internal import COpenSSL

/// Why a digest cannot be computed. The linked OpenSSL lacks the algorithm (a FIPS-only
/// configuration refuses MD5, for example), or it ran out of memory.
public struct DigestError: Error, Sendable, Hashable, CustomStringConvertible {
    public var algorithm: DigestAlgorithm
    public var message: String

    public init(algorithm: DigestAlgorithm, message: String) {
        self.algorithm = algorithm
        self.message = message
    }

    public var description: String { "cannot compute \(algorithm.rawValue): \(message)" }
}

/// Streaming digest of one algorithm, backed by an OpenSSL `EVP_MD_CTX` that it owns.
///
/// Feed bytes with `update`, read the digest with `finalize()`, which also leaves the
/// digester ready for a new message. One digester must not be used from two threads at
/// once. Give each thread its own (`copy()` duplicates the state part-way through a message).
public final class Digester {
    public let algorithm: DigestAlgorithm
    private let context: OpaquePointer
    private let method: OpaquePointer

    /// A digester at the start of an empty message.
    public init(algorithm: DigestAlgorithm) throws(DigestError) {
        let method = try OpenSSLDigests.shared.method(for: algorithm)
        guard let context = EVP_MD_CTX_new() else {
            throw DigestError(algorithm: algorithm, message: "EVP_MD_CTX_new failed (out of memory)")
        }
        guard EVP_DigestInit_ex(context, method, nil) == 1 else {
            EVP_MD_CTX_free(context)
            throw DigestError(algorithm: algorithm, message: "EVP_DigestInit_ex failed")
        }
        self.algorithm = algorithm
        self.method = method
        self.context = context
    }

    private init(algorithm: DigestAlgorithm, method: OpaquePointer, context: OpaquePointer) {
        self.algorithm = algorithm
        self.method = method
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Appends `bytes` to the message.
    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        // The built-in MD5/SHA update functions cannot fail on an initialised context, and
        // every path that leaves this class keeps the context initialised.
        let status = EVP_DigestUpdate(context, base, bytes.count)
        precondition(status == 1, "EVP_DigestUpdate failed on an initialised context")
    }

    /// Appends `bytes` to the message.
    public func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The digest of everything fed since the last `finalize()` or `reset()`. The digester
    /// then starts over with an empty message.
    public func finalize() -> Digest {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let finalStatus = out.withUnsafeMutableBufferPointer { buffer in
            EVP_DigestFinal_ex(context, buffer.baseAddress, &length)
        }
        precondition(finalStatus == 1, "EVP_DigestFinal_ex failed on an initialised context")
        out.removeSubrange(Int(length)...)
        reset()
        return Digest(algorithm: algorithm, bytes: out)
    }

    /// Forgets the bytes fed so far.
    public func reset() {
        // Re-initialising with the method this context was created with allocates nothing
        // new, so it cannot fail for lack of memory or provider.
        let status = EVP_DigestInit_ex(context, method, nil)
        precondition(status == 1, "EVP_DigestInit_ex failed on a method that initialised before")
    }

    /// An independent digester in the same state: feeding one does not affect the other.
    public func copy() throws(DigestError) -> Digester {
        guard let duplicate = EVP_MD_CTX_new() else {
            throw DigestError(algorithm: algorithm, message: "EVP_MD_CTX_new failed (out of memory)")
        }
        guard EVP_MD_CTX_copy_ex(duplicate, context) == 1 else {
            EVP_MD_CTX_free(duplicate)
            throw DigestError(algorithm: algorithm, message: "EVP_MD_CTX_copy_ex failed")
        }
        return Digester(algorithm: algorithm, method: method, context: duplicate)
    }

    /// The linked libcrypto's own version line, e.g. `OpenSSL 3.0.19 27 Jan 2026`.
    public static var openSSLVersion: String {
        guard let text = OpenSSL_version(OPENSSL_VERSION) else { return "OpenSSL (unknown version)" }
        return String(cString: text)
    }
}

extension Digest {
    /// The digest of `bytes` in one call.
    public static func compute(_ algorithm: DigestAlgorithm, of bytes: UnsafeRawBufferPointer) throws(DigestError) -> Digest {
        let method = try OpenSSLDigests.shared.method(for: algorithm)
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        // EVP_Digest accepts a null pointer only together with a zero count.
        let empty: UInt8 = 0
        let status = withUnsafePointer(to: empty) { emptyPointer in
            out.withUnsafeMutableBufferPointer { buffer in
                EVP_Digest(bytes.baseAddress ?? UnsafeRawPointer(emptyPointer), bytes.count, buffer.baseAddress, &length, method, nil)
            }
        }
        guard status == 1 else {
            throw DigestError(algorithm: algorithm, message: "EVP_Digest failed")
        }
        out.removeSubrange(Int(length)...)
        return Digest(algorithm: algorithm, bytes: out)
    }

    /// The digest of `bytes` in one call.
    public static func compute(_ algorithm: DigestAlgorithm, of bytes: [UInt8]) throws(DigestError) -> Digest {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(DigestError) in try compute(algorithm, of: buffer) }
        }
        return try result.get()
    }
}

extension Digester {
    /// Fetches OpenSSL's digest implementations if nothing has yet (the first fetch initializes
    /// OpenSSL, which reads its configuration). Digesters do this on first use; calling it
    /// early, from another thread, only moves the work: a caller arriving while it runs waits
    /// for it to finish.
    public static func prepareImplementations() { _ = OpenSSLDigests.shared }
}

/// The `EVP_MD` implementations, fetched once per process.
///
/// `EVP_sha256()` and friends return legacy tables that OpenSSL 3 fetches again from the
/// provider store (a lock and a lookup) on every `EVP_DigestInit_ex`. An explicitly fetched
/// method skips that, which shows on many small files hashed by several threads.
private struct OpenSSLDigests: @unchecked Sendable {
    // @unchecked: the pointers are written once, here, and fetched EVP_MD objects are
    // immutable and documented as safe to share between threads.
    private let methods: [OpaquePointer?]

    static let shared = OpenSSLDigests()

    private init() {
        methods = DigestAlgorithm.allCases.map { algorithm in
            EVP_MD_fetch(nil, algorithm.openSSLName, nil)
        }
    }

    func method(for algorithm: DigestAlgorithm) throws(DigestError) -> OpaquePointer {
        let index = DigestAlgorithm.allCases.firstIndex(of: algorithm) ?? 0
        guard let method = methods[index] else {
            throw DigestError(
                algorithm: algorithm,
                message: "OpenSSL has no \(algorithm.openSSLName) implementation (EVP_MD_fetch returned NULL)")
        }
        return method
    }
}

extension DigestAlgorithm {
    /// The name OpenSSL 3 fetches the algorithm by.
    var openSSLName: String {
        switch self {
        case .md5: "MD5"
        case .sha1: "SHA1"
        case .sha224: "SHA224"
        case .sha256: "SHA256"
        case .sha384: "SHA384"
        case .sha512: "SHA512"
        }
    }
}

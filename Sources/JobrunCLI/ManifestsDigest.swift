import Synchronization
import JobrunCore
import JobrunFiles

/// The SHA-256 of the manifests' bytes, in the order they were read: `run_start`'s
/// `manifests_sha256`. The same files concatenated in that order (`cat a.yaml b.yaml |
/// sha256sum`) give the same digest.
final class ManifestsDigest: Sendable {
    private struct State {
        var digester: Digester?
        var files = 0
    }

    private let state = Mutex(State())

    /// Appends one manifest's bytes (the loader's `manifestRead`). The digester is made on the
    /// first call, so that OpenSSL starts while apply prepares its libraries, not before.
    func add(_ bytes: [UInt8]) {
        state.withLock { state in
            if state.files == 0 { state.digester = try? Digester(algorithm: .sha256) }
            state.digester?.update(bytes)
            state.files += 1
        }
    }

    /// The digest in lowercase hex; `nil` when no manifest was read (or this OpenSSL has no
    /// SHA-256). Read once, at `run_start`.
    var hex: String? {
        state.withLock { state in
            guard state.files > 0, let digester = state.digester else { return nil }
            return digester.finalize().hex
        }
    }
}

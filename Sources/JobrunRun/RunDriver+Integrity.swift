import JobrunCore
import JobrunManifest
import JobrunOutcome

/// Slices that declare no digest: what was fetched for them is hashed anyway (SHA-256, on the
/// bytes as they stream, like a declared digest), so a report can pin it.
extension RunDriver {
    /// Shared, so choosing it allocates nothing per slice.
    static let pinningAlgorithms: [DigestAlgorithm] = [.sha256]

    /// The algorithms a slice's body is hashed with: its declared ones, else SHA-256.
    static func hashedAlgorithms(for slice: Slice) -> [DigestAlgorithm] {
        slice.digests.isEmpty ? pinningAlgorithms : slice.digests.map(\.algorithm)
    }

    /// A verified body's digests as its outcome reports them: the declared ones verified (the
    /// slice's own array, equal to what was computed, so that a run's outcomes share the
    /// manifest's storage), or, for a slice that declares none, the computed SHA-256.
    static func outcomeDigests(_ digests: [Digest], for slice: Slice) -> (verified: [Digest], computed: [Digest]) {
        slice.digests.isEmpty ? ([], digests) : (slice.digests, [])
    }
}

import JobrunCore
import JobrunManifest
import JobrunOutcome

/// Slices that declare no digest: what was fetched for them is hashed anyway (SHA-256, on the
/// bytes as they stream, like a declared digest), so a report can pin it, and the resource line
/// says how many passed without a digest.
extension Coordinator {
    /// Shared, so choosing it allocates nothing per slice.
    static let pinningAlgorithms: [DigestAlgorithm] = [.sha256]

    /// The algorithms a slice's body is hashed with: its declared ones, else SHA-256.
    static func hashedAlgorithms(for slice: Slice) -> [DigestAlgorithm] {
        slice.digests.isEmpty ? pinningAlgorithms : slice.digests.map(\.algorithm)
    }

    /// A verified body's digests as its outcome reports them: the declared ones verified, or,
    /// for a slice that declares none, the computed SHA-256.
    static func outcomeDigests(_ digests: [Digest], for slice: Slice) -> (verified: [Digest], computed: [Digest]) {
        slice.digests.isEmpty ? ([], digests) : (digests, [])
    }

    /// `, 2 size only, 1 unverified` for the slices of resource `r` that passed without a digest;
    /// empty when there are none.
    func integrityNote(resource r: Int) -> String {
        let resource = plan.entries[r].resource
        var counts = IntegrityCounts()
        for j in jobsOfResource[r] where jobs[j].outcome?.hasPassed == true {
            counts.add(resource.slices[jobs[j].slice].integrity)
        }
        var note = ""
        if counts.sizeOnly > 0 { note += ", \(counts.sizeOnly) size only" }
        if counts.unverified > 0 { note += ", \(counts.unverified) unverified" }
        return note
    }
}

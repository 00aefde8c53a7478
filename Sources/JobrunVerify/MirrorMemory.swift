public import JobrunCore
public import JobrunManifest
public import JobrunState

/// What the output roots' mirror states recorded, as a plan or a verification uses it: a file
/// whose identity is what its record proved is not read again (``ProvenFile/identity(provingSize:digests:)``).
public struct MirrorMemory: Sendable {
    /// Records by output root (as the manifests name it), then by path relative to it.
    public var known: [String: [String: ProvenFile]]
    /// Whether files may be recognized without being read (`false`: `--rehash`, every file
    /// present is read, and the records are only written).
    public var recognizes: Bool

    public init(known: [String: [String: ProvenFile]], recognizes: Bool = true) {
        self.known = known
        self.recognizes = recognizes
    }

    /// Gives every expectation whose file has a usable record the identity that proves it.
    public func recall(into expectations: inout [FileExpectation]) {
        guard recognizes, !known.isEmpty else { return }
        var root = ""
        var records: [String: ProvenFile]?
        for k in expectations.indices where !expectations[k].digests.isEmpty {
            if expectations[k].root != root || records == nil {
                root = expectations[k].root
                records = known[root] ?? [:]
            }
            guard let record = records?[expectations[k].relativePath] else { continue }
            expectations[k].proven = record.identity(provingSize: expectations[k].size, digests: expectations[k].digests)
        }
    }

    /// What the checks of `expectations` (made by ``recall(into:)`` from the slices of
    /// `manifest`'s resources in `order`) proved, and which records they made stale.
    public func proofs(of manifest: Manifest, in order: [Int], expectations: [FileExpectation], results: FileChecker.Results) -> CheckProofs {
        var proofs = CheckProofs()
        var k = 0
        for index in order {
            let r = manifest.resources[index]
            for _ in r.slices {
                defer { k += 1 }
                let expectation = expectations[k]
                let observation = k < results.observations.count ? results.observations[k] : FileObservation()
                // Looked up only where needed: an unchanged mirror is all `.recognized`.
                var hasRecord: Bool { known[expectation.root]?[expectation.relativePath] != nil }
                switch observation.proof {
                case .recognized:
                    proofs.recognized += 1
                case .hashed, .metadata:
                    if observation.proof == .hashed { proofs.hashed += 1 }
                    guard case .ok(_, let digests) = results.checks[k], let file = observation.identity else {
                        if hasRecord { proofs.stale[expectation.root, default: []].append(expectation.relativePath) }
                        continue
                    }
                    // A stat proves nothing new of a file already recorded as it is (and must not
                    // overwrite the digests its fetch computed, nor make it look freshly proven).
                    if observation.proof == .metadata, known[expectation.root]?[expectation.relativePath]?.file == file { continue }
                    proofs.proven[expectation.root, default: []].append(ProvenSlice(
                        path: expectation.relativePath, resource: r.id,
                        digests: digests.isEmpty ? expectation.digests : digests, file: file, seenAtNanoseconds: observation.seenAt,
                        provenAtMilliseconds: observation.seenAt / 1_000_000, fetchedAtMilliseconds: nil))
                case nil:
                    if hasRecord { proofs.stale[expectation.root, default: []].append(expectation.relativePath) }
                }
            }
        }
        return proofs
    }
}

import JobrunCore
import JobrunManifest
import JobrunPlan
import JobrunOutcome
import JobrunSystem

/// Slices whose file is in place and asked of its origin again (`refresh:`,
/// ``SliceAction/revalidate``): a 304 confirms the file; a body replaces it only when its bytes
/// differ (``CommitBatch/sameBytesInPlace(as:)``).
extension RunDriver {
    /// How job `j` is revalidated, when it is (a revalidation, or the resume of one's partial file).
    func revalidation(of j: SliceID) -> Revalidation? {
        let r = machine.book.jobs[j].resource
        return plan.entries[r].revalidations.isEmpty ? nil : plan.entries[r].revalidations[machine.book.jobs[j].slice]
    }

    /// Whether job `j` revalidates a file in place: its plan's decision says so.
    func isRevalidation(_ j: SliceID) -> Bool {
        plan.entries[machine.book.jobs[j].resource].decisions[machine.book.jobs[j].slice].action == .revalidate
    }

    /// Job `j`'s slice.
    func slice(of j: SliceID) -> Slice {
        plan.entries[machine.book.jobs[j].resource].resource.slices[machine.book.jobs[j].slice]
    }

    /// Why a verified body may not replace a file in place, or `nil`: a revalidation's body of a
    /// slice without a declared size whose end only the connection's close marked could be one cut
    /// short, and the file it would replace is whole.
    static func refusesToReplace(sink: BodySink, declaredSize: Int64?) -> AttemptFailure? {
        guard declaredSize == nil, !sink.hasDelimitedBody else { return nil }
        return AttemptFailure(
            kind: .truncated,
            message: "the response declared no length, so a connection cut short could not be told from its end; the file in place is kept",
            isTransient: false)
    }

    /// The validators job `j`'s request to `origin` carries: those of its revalidation, when they
    /// came from that origin; none otherwise (a whole GET, its bytes compared).
    func conditionalValidators(_ j: SliceID, at origin: String) -> OriginValidators {
        guard let validators = revalidation(of: j)?.validators, validators.isFrom(origin) else { return OriginValidators() }
        return validators
    }

    /// `validators` as the mirror state records them: with the origin job `j`'s last response came
    /// from (a redirect's target's, or its current URL's), when any was sent.
    func recorded(_ validators: OriginValidators, of j: SliceID) -> OriginValidators {
        guard !validators.isEmpty else { return validators }
        var kept = validators
        kept.origin = machine.origin(j)
        return kept
    }

    /// A 304: the file in place is the origin's current version. No file is touched; the mirror
    /// state renews its record (if the record still has the identity the request was made for).
    mutating func settleNotModified(_ j: SliceID, validators: OriginValidators, httpVersion: String?) {
        let (r, s) = (machine.book.jobs[j].resource, machine.book.jobs[j].slice)
        let slice = plan.entries[r].resource.slices[s]
        var outcome = SliceOutcome(
            status: .upToDate, bytesTransferred: machine.book.jobs[j].bytesTransferred.value, size: revalidation(of: j)?.file?.size ?? slice.size,
            attempts: Int(machine.book.jobs[j].attempts), duration: machine.book.firstStart(j).map { ContinuousClock.now - $0 } ?? .zero,
            displayURL: displayURL(j), httpVersion: httpVersion)
        outcome.revalidation = .notModified
        settle(j, outcome, validators: recorded(validators, of: j), confirmed: revalidation(of: j)?.file)
        finishResourceIfDone(r)
    }

    /// A revalidation's body held the bytes of the file in place, which stays (`kept`, its
    /// identity as hashed).
    mutating func settleSameBytes(_ j: SliceID, _ body: VerifiedBody, kept: FileIdentity) {
        let slice = plan.entries[machine.book.jobs[j].resource].resource.slices[machine.book.jobs[j].slice]
        let reported = Self.outcomeDigests(body.digests, for: slice)
        var outcome = SliceOutcome(
            status: .upToDate, bytesTransferred: machine.book.jobs[j].bytesTransferred.value, size: body.size.value,
            attempts: Int(machine.book.jobs[j].attempts), digests: reported.verified, computedDigests: reported.computed,
            duration: machine.book.firstStart(j).map { body.verifiedAt - $0 } ?? .zero, displayURL: displayURL(j), httpVersion: body.httpVersion)
        outcome.revalidation = .sameBytes
        settle(j, outcome, file: kept, identity: body.file.identity, validators: recorded(body.validators, of: j))
    }
}

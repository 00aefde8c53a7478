import JobrunCore
import JobrunPlan
import JobrunOutcome
import JobrunSystem

/// Slices whose file is in place and asked of its origin again (`refresh:`,
/// ``SliceAction/revalidate``): a 304 confirms the file; a body replaces it only when its bytes
/// differ (``CommitBatch/sameBytesInPlace(as:)``).
extension RunDriver {
    /// How job `j` is revalidated, when it is.
    func revalidation(of j: SliceID) -> Revalidation? {
        let (r, s) = (machine.book.jobs[j].resource, machine.book.jobs[j].slice)
        guard plan.entries[r].decisions[s].action == .revalidate else { return nil }
        return plan.entries[r].revalidations[s]
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
        settle(j, outcome, validators: validators, confirmed: revalidation(of: j)?.file)
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
        settle(j, outcome, file: kept, identity: body.file.identity, validators: body.validators)
    }
}

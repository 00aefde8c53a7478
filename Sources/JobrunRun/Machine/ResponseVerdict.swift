import JobrunCore
import JobrunOutcome

/// How an attempt's response was taken, as its ``BodySink`` carried out the ``ResponseGate``'s decision.
enum ResponseVerdict {
    /// The body was accepted (into memory or the partial file, from its start offset).
    case body
    /// A redirect to follow.
    case redirect(location: String)
    /// A response refused; the failure says why.
    case refused(AttemptFailure)
    /// A 304 to a conditional request: the file in place is current; the validators it carried.
    case notModified(OriginValidators)
}

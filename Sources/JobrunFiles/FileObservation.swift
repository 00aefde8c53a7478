public import JobrunCore
public import JobrunSystem

/// How a file that passed its check was found correct, and what it was then.
public struct FileObservation: Sendable, Hashable {
    public enum Proof: UInt8, Sendable, Hashable {
        /// Its bytes were read and hashed.
        case hashed
        /// It still had the identity of its last proof (``FileExpectation/proven``): not read.
        case recognized
        /// Nothing needed reading: no digest is expected (only the size, or only presence).
        case metadata
    }

    /// `nil` for a file that did not pass.
    public var proof: Proof?
    /// The file's identity as it was proven, or, for a file whose size or digest differs, as it
    /// was found; `nil` when it changed while it was read (the finding then holds for no
    /// identity), or when it is missing or not a regular file.
    public var identity: FileIdentity?
    /// When the identity was taken (wall clock, ns since the epoch).
    public var seenAt: Int64
    /// Whether any later write would have changed the identity, as it was seen
    /// (``FileIdentity/isSettled(seen:)``), and the wall clock's step had passed too: a file a
    /// check reads may be another writer's, whose write stamped its time before it copied its
    /// bytes, and may still be copying them; the step bounds how long such a write may stall
    /// unseen, as it did before the coarse clock judged.
    public var isSettled: Bool

    public init(proof: Proof? = nil, identity: FileIdentity? = nil, seenAt: LookTime = LookTime(wall: 0)) {
        self.proof = proof
        self.identity = identity
        self.seenAt = seenAt.wall
        isSettled = identity.map { $0.isSettled(seen: seenAt) && $0.isSettled(at: seenAt.wall) } ?? false
    }
}

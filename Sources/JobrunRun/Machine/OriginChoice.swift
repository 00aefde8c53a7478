import JobrunOutcome

/// Which of a slice's URLs its next attempt goes to, when it has several: one per origin of its
/// resource (`base_urls`), or its own `urls`, tried in the order given. A part of the run's
/// machine, told each failed attempt and asked where the next one goes; it keeps nothing for a
/// slice still at its first URL, so a run of single-origin resources pays one empty dictionary.
///
/// | the attempt at URL k failed with                         | k this round | k later      |
/// |-----------------------------------------------------------|--------------|--------------|
/// | a transient failure (transport, 5xx, 408, 429, stall, a    | moved off    | tried again  |
/// | size or digest mismatch, truncation)                      |              | in a new round |
/// | a failure for good at that origin (404, 410, 403, TLS, a   | moved off    | never again  |
/// | refused redirect, an unrequested coding)                  |              | for the slice |
/// | a failure on this side (disk, I/O, an unsafe path, a stop) | stays        | —            |
///
/// Two sets of URLs are told with each question: `usable`, whose origins take work now (not given
/// up on, breaker closed, not quarantined), and `alive`, whose origins have not been given up on
/// (an open breaker will probe, a quarantined origin still answers). The next URL is the first
/// not excluded and not tried this round, usable ones first, then alive ones; it is tried at
/// once. When every one was tried this round, a new round starts at the first usable one (else
/// the first alive one) after the slice's backoff. When none is alive, the slice's failure is
/// final.
struct OriginChoice {
    /// A slice's URLs beyond which the bit sets below cannot count (the manifest allows no more).
    static let maximumURLs = 64

    /// Where a slice with several URLs stands.
    struct Standing: Equatable {
        /// The URL its next or running attempt goes to.
        var current = 0
        /// URLs failed this round.
        var tried: UInt64 = 0
        /// URLs whose origin failed for good for this slice.
        var excluded: UInt64 = 0
        /// Every failed attempt, in order: which URL, and why.
        var failures: [Failed] = []
    }

    /// A failed attempt at one of a slice's URLs.
    struct Failed: Equatable {
        var url: Int
        var failure: AttemptFailure
    }

    /// Where a failed slice goes next (``move(_:to:)`` takes it there once the run agrees).
    enum Step: Equatable {
        /// To URL `k` at once: not tried this round.
        case failover(to: Int)
        /// To URL `k` after the slice's backoff: every URL left was tried this round.
        case nextRound(at: Int)
        /// Its URL stays (the failure was on this side): the usual retry rules apply.
        case stays
        /// Nowhere: every URL failed for good or its origin was given up on.
        case exhausted
    }

    /// The slices that have left their first URL or failed at one, by job.
    private(set) var standings: [SliceID: Standing] = [:]

    /// The URL job `j`'s next or running attempt goes to.
    func current(_ j: SliceID) -> Int {
        standings.isEmpty ? 0 : standings[j]?.current ?? 0
    }

    /// Job `j`'s failed attempts at its URLs, in order.
    func failures(_ j: SliceID) -> [Failed] {
        standings.isEmpty ? [] : standings[j]?.failures ?? []
    }

    /// Whether `failure` says something of the origin that answered (the slice may do better at
    /// another), rather than of this side.
    static func movesOn(after failure: AttemptFailure) -> Bool {
        switch failure.kind {
        case .diskFull, .io, .unsafePath, .interrupted: false
        default: true
        }
    }

    /// Job `j` failed with `failure` at its current URL: recorded, and where it goes next (its
    /// current URL stays until ``move(_:to:)``).
    mutating func failed(_ j: SliceID, _ failure: AttemptFailure, usable: UInt64, alive: UInt64) -> Step {
        var s = standings[j] ?? Standing()
        s.failures.append(Failed(url: s.current, failure: failure))
        defer { standings[j] = s }
        guard Self.movesOn(after: failure) else { return .stays }
        let bit = UInt64(1) << UInt64(s.current)
        s.tried |= bit
        if !failure.isTransient { s.excluded |= bit }
        let open = ~s.excluded & ~s.tried
        if let k = Self.first(of: usable & open) ?? Self.first(of: alive & open) { return .failover(to: k) }
        guard let k = Self.first(of: usable & ~s.excluded) ?? Self.first(of: alive & ~s.excluded) else { return .exhausted }
        s.tried = 0
        return .nextRound(at: k)
    }

    /// Job `j`'s next attempt goes to its URL `k`.
    mutating func move(_ j: SliceID, to k: Int) {
        standings[j, default: Standing()].current = k
    }

    /// Job `j` is about to wait for a slot: when its current URL's origin takes no work (no bit
    /// in `usable`), it moves to the first usable one not excluded, or when its origin was given
    /// up on (no bit in `alive`), to the first alive one; not counted as a failure. Whether it
    /// moved.
    mutating func place(_ j: SliceID, usable: UInt64, alive: UInt64) -> Bool {
        let s = standings[j] ?? Standing()
        let bit = UInt64(1) << UInt64(s.current)
        guard usable & bit == 0 else { return false }
        let next = Self.first(of: usable & ~s.excluded) ?? (alive & bit == 0 ? Self.first(of: alive & ~s.excluded) : nil)
        guard let k = next, k != s.current else { return false }
        move(j, to: k)
        return true
    }

    /// Whether job `j` may be moved to its URL `k` to spread the load: it has not failed there
    /// in this round, nor for good.
    func mayMove(_ j: SliceID, to k: Int) -> Bool {
        guard !standings.isEmpty, let s = standings[j] else { return true }
        return (s.tried | s.excluded) & (UInt64(1) << UInt64(k)) == 0
    }

    /// Job `j` has ended: what it tried is no longer needed here (its outcome keeps it).
    mutating func forget(_ j: SliceID) {
        if !standings.isEmpty { standings[j] = nil }
    }

    private static func first(of set: UInt64) -> Int? {
        set == 0 ? nil : set.trailingZeroBitCount
    }
}

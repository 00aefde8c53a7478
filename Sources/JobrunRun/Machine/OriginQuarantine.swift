import JobrunOutcome

/// Origins that served wrong bytes: a response whose size or digest is not the slice's. After
/// wrong answers for ``threshold`` slices an origin is quarantined for the rest of the run: slices with
/// another URL pass it over (``OriginChoice``), those with none still go there (their digest
/// decides each answer). A part of the run's machine, beside the breakers: a breaker judges
/// whether an origin answers, this whether what it answers is right.
struct OriginQuarantine {
    /// Slices answered wrong that quarantine an origin: more than one, so that one bad file on an
    /// origin (a half-synced mirror) moves its slice alone, and few, so that a corrupting origin
    /// costs little.
    static let threshold = 3

    /// The slices that got a wrong answer, by origin; only origins with one at least. A slice
    /// counts once per origin: one bad file (a digest out of date) is not a bad origin.
    private(set) var wrongAnswers: [String: Set<SliceID>] = [:]
    /// The origins quarantined, with the last wrong answer's text.
    private(set) var quarantined: [String: String] = [:]

    var isEmpty: Bool { quarantined.isEmpty }

    /// Whether `failure` is a wrong answer: a whole body of the wrong size or digest.
    static func isWrongAnswer(_ failure: AttemptFailure) -> Bool {
        failure.kind == .checksumMismatch || failure.kind == .sizeMismatch
    }

    /// `origin` answered wrong bytes (`failure`) for job `j`: whether that quarantined it now.
    mutating func wrongAnswer(at origin: String, job j: SliceID, _ failure: AttemptFailure) -> Bool {
        wrongAnswers[origin, default: []].insert(j)
        guard wrongAnswers[origin, default: []].count >= Self.threshold, quarantined[origin] == nil else { return false }
        quarantined[origin] = "\(failure.kind.rawValue): \(failure.message)"
        return true
    }

    /// An earlier run quarantined `origin` (for `reason`), and the mirror state still says so.
    mutating func remember(_ origin: String, reason: String) {
        quarantined[origin] = reason
    }

    func holds(_ origin: String) -> Bool {
        !quarantined.isEmpty && quarantined[origin] != nil
    }
}

public import JobrunCore
public import JobrunManifest
public import JobrunState
public import JobrunSystem

/// How a slice in place is asked of its origin again (``SliceAction/revalidate``), from its
/// `refresh:` and what the mirror state recorded of the origin's last word on it.
public struct Revalidation: Sendable, Hashable {
    public var mode: RefreshPolicy.Mode
    /// Sent as `If-None-Match` / `If-Modified-Since`; empty for a whole GET (`always`, or no
    /// validator known for the file as it is).
    public var validators: OriginValidators
    /// The record's identity of the file the validators belong to: a 304 confirms that record
    /// only while it still has it.
    public var file: FileIdentity?
    /// When the origin last vouched for the file as it is; `nil` when it never did.
    public var confirmedAtMilliseconds: Int64?

    public init(mode: RefreshPolicy.Mode, validators: OriginValidators = OriginValidators(), file: FileIdentity? = nil, confirmedAtMilliseconds: Int64? = nil) {
        self.mode = mode
        self.validators = validators
        self.file = file
        self.confirmedAtMilliseconds = confirmedAtMilliseconds
    }

    /// Whether the request is conditional (a 304 may answer it).
    public var isConditional: Bool { !validators.isEmpty }

    /// The revalidation a slice under `policy` is due for at `now` (ms since the epoch), whose
    /// file in place has `identity` (`nil` when unknown) and whose record is `record`; `nil` when
    /// it is not due. A pure rule:
    ///
    /// | the record                                             | result                                   |
    /// |--------------------------------------------------------|------------------------------------------|
    /// | policy `never`                                         | `nil`                                    |
    /// | the file's identity, confirmed within `max_age`        | `nil`: fresh                             |
    /// | the file's identity, validators, `conditional`         | conditional GET with them                |
    /// | the file's identity, `always` or no validator          | whole GET                                |
    /// | none, or another identity (changed since its fetch)    | whole GET: its bytes are compared        |
    public static func due(_ policy: RefreshPolicy, identity: FileIdentity?, record: ProvenFile?, now: Int64) -> Revalidation? {
        guard policy.mode != .never else { return nil }
        guard let record, let identity, record.file == identity else { return Revalidation(mode: policy.mode) }
        guard policy.isDue(confirmedAt: record.confirmedAtMilliseconds, now: now) else { return nil }
        return Revalidation(
            mode: policy.mode, validators: policy.mode == .conditional ? record.validators : OriginValidators(), file: record.file,
            confirmedAtMilliseconds: record.confirmedAtMilliseconds)
    }

    /// Why the slice is asked again, as the plan shows it: `last vouched for 3 h ago; If-None-Match "abc"`.
    public func reason(now: Int64) -> String {
        let when: String
        if let confirmed = confirmedAtMilliseconds {
            when = "its origin last vouched for it \(DurationParser.format(milliseconds: max(0, now - confirmed))) ago"
        } else if file != nil {
            when = "its origin never vouched for it"
        } else {
            when = "nothing records its origin's word on it as it is"
        }
        let how = isConditional ? "a conditional GET (\(validators.description))" : "a whole GET, kept only if its bytes differ"
        return "refresh \(mode.rawValue): \(when); \(how)"
    }
}

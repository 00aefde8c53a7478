public import JobrunCore
public import JobrunState

/// Options of one `apply` run.
public struct ApplyOptions: Sendable {
    /// Extra trust anchors for TLS (`--cacert`).
    public var caFile: String?
    /// `file://` URLs were allowed when the manifests were read.
    public var allowsFileURLs = false
    /// When the run stops at its deadline (`--deadline` less `--deadline-margin`): transfers in
    /// flight are cancelled, and before it no slice starts that would not finish in time.
    public var deadline: ContinuousClock.Instant?
    /// The most the whole run may receive per second, over all its transfers (`--limit-rate`;
    /// `nil`: no limit).
    public var rateLimit: ByteRate?
    /// The wall clock in seconds since the epoch (for `Retry-After` dates).
    public var wallClock: @Sendable () -> Int64 = { Int64(time(nil)) }
    /// The network policy: resources it defers do not start (``RunPolicy``); `nil`: no policy
    /// is judged (a plan's deferrals stand as they are).
    public var policy: RunPolicy?
    /// How long the run waits while every origin with work is unreachable (``OfflinePause``;
    /// `--offline-wait`); zero: connection failures count as any other.
    public var offlineWait: Duration = .seconds(600)
    /// Origins an earlier run quarantined for wrong bytes, still remembered (the mirror state's):
    /// slices with another URL pass them over from the start.
    public var quarantinedOrigins: [StateStore.QuarantinedOrigin] = []
    /// Random numbers in `[0, 1)` for backoff jitter.
    public var random: @Sendable () -> Double = { Double.random(in: 0..<1) }

    public init() {}
}

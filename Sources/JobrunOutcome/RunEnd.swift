/// The last event's facts.
public struct RunEnd: Sendable {
    public var exitStatus: Int32
    public var stopReason: StopReason?
    /// The command's counts, named as in its JSON summary (`fetched`, `failed`, …); empty when
    /// it ended on an error before its summary (a manifest error, a locked root).
    public var counts: [(name: String, value: Int64)]
    /// The command's last human line (`Apply complete! …`); `nil` when it ended on an error
    /// before it (the error went to stderr).
    public var summaryLine: String?
    public var elapsed: Duration

    public init(exitStatus: Int32, stopReason: StopReason?, counts: [(name: String, value: Int64)], summaryLine: String?, elapsed: Duration) {
        self.exitStatus = exitStatus
        self.stopReason = stopReason
        self.counts = counts
        self.summaryLine = summaryLine
        self.elapsed = elapsed
    }
}

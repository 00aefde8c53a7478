/// A run's counters at one moment, kept as the run goes (never by scanning its slices).
public struct RunProgress: Sendable, Hashable {
    /// Slices the run transfers (fetch, refetch, resume), and their declared bytes.
    public var slicesToTransfer = 0
    public var bytesToTransfer: Int64 = 0
    /// Of those, slices whose size is not declared (their bytes are not in `bytesToTransfer`).
    public var unsizedToTransfer = 0
    /// Slices of the plan, and how each ended so far (up-to-date and deferred ones from the start).
    public var slicesTotal = 0
    public var counts = ApplyResult.Counts()
    /// Slices to transfer that have ended (fetched, resumed, failed or skipped).
    public var slicesSettled = 0
    /// Declared bytes of the slices to transfer that have ended, plus the bytes in flight: what
    /// the completion is measured by when every size is declared.
    public var bytesSettled: Int64 = 0
    /// Bytes received by transfers still running, counted as each piece arrives (their slices'
    /// share of ``bytesSettled`` once they end).
    public var bytesInFlight: Int64 = 0
    /// Every body byte received, failed attempts included: what the rate is measured by.
    public var bytesReceived: Int64 = 0
    public var running = 0
    /// The origins with requests in flight, most first (at most ``originsShown``), their limits,
    /// and how many there are.
    public var origins: [OriginInFlight] = []
    public var originCount = 0
    /// Slices waiting to try again.
    public var retrying = 0
    /// How long the run has been offline, while it is (every origin with work unreachable).
    public var offlineFor: Duration?
    /// Resources whose slices are under way, in plan order (at most ``activeShown``), and how many.
    public var activeResources: [String] = []
    public var activeCount = 0
    /// Since the run started.
    public var elapsed: Duration = .zero

    public static let activeShown = 8
    public static let originsShown = 8

    public init() {}

    /// The part of the transfers done, from 0 to 1: by bytes when every size is declared,
    /// otherwise by slices; 1 when there is nothing to transfer.
    public var fraction: Double {
        if unsizedToTransfer == 0 && bytesToTransfer > 0 {
            return min(1, Double(bytesSettled + bytesInFlight) / Double(bytesToTransfer))
        }
        guard slicesToTransfer > 0 else { return 1 }
        return min(1, Double(slicesSettled) / Double(slicesToTransfer))
    }

    /// Every body byte received so far, those of transfers still running included (as far as they
    /// have reported them): what a rate is measured by between two moments.
    public var bytesArrived: Int64 { bytesReceived + bytesInFlight }

    /// Bytes still to transfer, when every size is declared.
    public var bytesRemaining: Int64? {
        guard unsizedToTransfer == 0 else { return nil }
        return max(0, bytesToTransfer - bytesSettled - bytesInFlight)
    }
}

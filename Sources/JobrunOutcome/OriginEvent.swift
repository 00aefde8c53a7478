/// An origin's circuit breaker (``OriginBreaker`` in the run module) changing state.
public enum OriginEvent: Sendable, Hashable {
    /// `failures` attempts in a row failed: one probe at a time from now on.
    case tripped(failures: Int, last: String)
    /// A request succeeded again: requests resume.
    case recovered
    /// Its probes failed too: `slicesFailed` waiting slices fail without a request.
    case failing(failures: Int, last: String, slicesFailed: Int)
    /// It answered `wrongAnswers` slices with the wrong size or digest: slices with another URL
    /// pass it over for the rest of the run.
    case quarantined(wrongAnswers: Int, last: String)
    /// An earlier run quarantined it, remembered until `untilMilliseconds` (since the epoch):
    /// slices with another URL pass it over from the start.
    case stillQuarantined(untilMilliseconds: Int64, last: String)
}

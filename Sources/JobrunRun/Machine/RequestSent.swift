/// When an attempt's request went, and how many were in flight at its origin then (itself
/// included): what an answer to it can say of the origin's limit.
struct RequestSent: Equatable {
    var at: ContinuousClock.Instant
    var inFlight: Int
}

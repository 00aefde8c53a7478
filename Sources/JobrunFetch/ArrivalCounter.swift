import Synchronization

/// Every body byte the transfers of some engines have taken so far, counted as each piece
/// arrives: a run's progress reads it at the display's pace, so a transfer's bytes count from
/// the first piece rather than when it ends. One relaxed atomic add per piece on the engine
/// thread; a reader may see a total a few pieces behind, never ahead.
public final class ArrivalCounter: Sendable {
    private let bytes = Atomic<Int64>(0)

    public init() {}

    func add(_ count: Int) {
        bytes.wrappingAdd(Int64(count), ordering: .relaxed)
    }

    /// The bytes taken so far.
    public var total: Int64 { bytes.load(ordering: .relaxed) }
}

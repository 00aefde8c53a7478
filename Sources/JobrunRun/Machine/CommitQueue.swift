/// Verified slices waiting for their durable commit: when a batch is due for the disk worker's thread
/// (``CommitBatch``), how many batches are with it, and which output roots have renames not yet
/// synced. A part of the run's machine: it is told the time, and reads no clock.
struct CommitQueue {
    /// A batch goes once it holds this many slices,
    static let batchSize = 256
    /// or once its oldest slice has waited this long (or when forced: a resource's last slice).
    static let longestWait: Duration = .seconds(1)

    /// Jobs verified and waiting, in the order they were.
    private(set) var pending: [SliceID] = []
    private var oldest: ContinuousClock.Instant?
    /// Batches handed to the disk worker's thread whose results have not come back.
    private(set) var inFlight = 0
    /// Output roots with files renamed into place since their last sync.
    private(set) var renamedSinceSync = Set<String>()

    /// Nothing waits and nothing is with the disk worker.
    var isIdle: Bool { pending.isEmpty && inFlight == 0 }

    /// When the oldest waiting slice's batch is due.
    var nextDue: ContinuousClock.Instant? { oldest.map { $0 + Self.longestWait } }

    /// Job `j` was verified at `now`; whether the batch is full.
    mutating func add(_ j: SliceID, at now: ContinuousClock.Instant) -> Bool {
        pending.append(j)
        if oldest == nil { oldest = now }
        return pending.count >= Self.batchSize
    }

    /// The jobs of the batch to hand over now, if one is due at `now` (`force`: whatever waits,
    /// without asking the time), counted as with the disk worker until ``batchReturned()``.
    mutating func takeBatch(now: @autoclosure () -> ContinuousClock.Instant, force: Bool) -> [SliceID]? {
        guard !pending.isEmpty else { return nil }
        if !force, let oldest, now() - oldest < Self.longestWait { return nil }
        let batch = pending
        pending = []
        oldest = nil
        inFlight += 1
        return batch
    }

    mutating func batchReturned() {
        inFlight -= 1
    }

    /// A file was renamed into `root`.
    mutating func renamed(into root: String) {
        renamedSinceSync.insert(root)
    }

    /// `root` was synced: its renames so far are durable.
    mutating func synced(_ root: String) {
        renamedSinceSync.remove(root)
    }
}

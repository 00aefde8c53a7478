import JobrunCore
/// The bodies received and not yet checked or stored: those waiting on the driver's thread
/// and the memory bodies with the ``DiskWorker``. Each holds its memory, so past the bounds no new
/// slice starts until the backlog shrinks. A part of the run's machine.
struct BodyBacklog {
    /// Finished transfers waiting on the driver's thread to be checked,
    static let mostWaiting = 64
    /// and their bytes with the disk worker's (memory bodies only).
    static let mostBytes = ByteCount(8 << 20)
    /// Memory bodies with the disk worker: enough to keep it busy while the disk is slow to create files.
    static let mostStoring = 256

    /// Memory bodies handed to the disk worker and not yet reported back, and their bytes.
    private(set) var storing = 0
    private(set) var storingBytes: ByteCount = 0

    mutating func handed(bytes: ByteCount) {
        storing += 1
        storingBytes += bytes
    }

    mutating func returned(bytes: ByteCount) {
        storing -= 1
        storingBytes -= bytes
    }

    /// Whether slices may start while the disk worker holds what it holds.
    var admitsStarts: Bool { storing <= Self.mostStoring && storingBytes <= Self.mostBytes }

    /// Whether slices may start while `waiting` bodies of `waitingBytes` (in memory) wait on the
    /// driver's thread besides.
    func admitsStarts(waiting: Int, waitingBytes: ByteCount) -> Bool {
        waiting <= Self.mostWaiting && waitingBytes + storingBytes <= Self.mostBytes
    }
}

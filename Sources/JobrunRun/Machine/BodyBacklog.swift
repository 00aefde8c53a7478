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
    /// Finished transfers waiting on the driver's thread to be checked, and the bytes of those in memory.
    private(set) var waiting = 0
    private(set) var waitingBytes: ByteCount = 0

    /// A finished transfer's body waits on the driver's thread; `bytes` of it in memory.
    mutating func waits(bytes: ByteCount) {
        waiting += 1
        waitingBytes += bytes
    }

    /// A waiting body is taken to be checked.
    mutating func taken(bytes: ByteCount) {
        waiting -= 1
        waitingBytes -= bytes
    }

    mutating func handed(bytes: ByteCount) {
        storing += 1
        storingBytes += bytes
    }

    mutating func returned(bytes: ByteCount) {
        storing -= 1
        storingBytes -= bytes
    }

    /// Whether slices may start while the disk worker and the driver's thread hold what they hold.
    var admitsStarts: Bool {
        storing <= Self.mostStoring && waiting <= Self.mostWaiting && storingBytes + waitingBytes <= Self.mostBytes
    }
}
